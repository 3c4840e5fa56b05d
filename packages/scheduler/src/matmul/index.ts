// The GEMM segment (a cuBLASLt library call, not a generated kernel): its pattern, layouts,
// parameters and their printing. Exported through the package entry.

export { NO_MATMUL, matchGemmSegment, type GemmPattern, type PatternResult } from './epilogue-pattern.js';
export { planGemmLayout, type GemmLayout, type OperandInfo, type OperandRole } from './operand-layout.js';
export { analyzeMatmulSegment, canScheduleMatmul, type MatmulSegmentAnalysis, type MatmulSegmentOptions } from './segment-analysis.js';
export { GemmShapeError } from './shape-error.js';
export {
  matmulParamsToString,
  type MatmulParams,
  type MatmulEpilogue,
  type MatmulEpilogueKind,
  type MatmulDtype,
  type Float8Dtype,
  type GemmOperandDtype,
  type GroupedMmLayout,
  type MatmulOperandLayout,
  type MatmulOutputLayout,
} from './params.js';
export { MatmulScheduler } from './scheduler.js';
