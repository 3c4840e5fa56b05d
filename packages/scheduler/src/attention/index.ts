// The attention segment (generated flash-attention kernels for one sdpfa_fwd / sdpfa_bwd): its
// parameters, their printing and the scheduler. Exported through the package entry.

export { analyzeAttentionSegment, canScheduleAttention, NO_ATTENTION, type AttentionSegmentAnalysis } from './segment-analysis.js';
export {
  attentionParamsToString,
  type AttentionParams,
  type AttentionKernelVariant,
  type AttentionOperand,
  type AttentionRngValue,
  type AttentionScale,
  type AttentionForwardTensors,
  type AttentionBackwardTensors,
} from './params.js';
export { AttentionScheduler } from './scheduler.js';
