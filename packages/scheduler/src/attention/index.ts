// The attention segment (generated flash-attention kernels for one sdpfa_fwd / sdpfa_bwd): its
// parameters, their printing and the scheduler. Exported through the package entry.

export { computeAttentionHeuristics, canScheduleAttention, NO_ATTENTION, type AttentionHeuristicsResult } from './heuristics.js';
export {
  attentionParamsToString,
  type AttentionParams,
  type AttentionKernelVariant,
  type AttentionOperand,
  type AttentionRngValue,
  type AttentionForwardTensors,
  type AttentionBackwardTensors,
} from './params.js';
export { AttentionScheduler } from './scheduler.js';
