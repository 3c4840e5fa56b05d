// runGraph: run-graph.ts (the interpreter and executor hook), guard-check.ts (the guard's
// run-time test), host-ops.ts and node-reference.ts (reference semantics of single nodes),
// run-values.ts (the values and tensor metadata).
export {
  runGraph,
  referenceGroupExecutor,
  GroupLowerings,
  referenceExecutor,
  launchParamDump,
  type FusionGroupCall,
  type FusionGroupExecutor,
  type GroupRunStats,
  type RunGraphOptions,
  type RunGraphResult,
} from './run-graph.js';
export { tensorComplianceProblem } from './guard-check.js';
export { evalNodeReference } from './node-reference.js';
export { withTensorMeta, tensorMeta, type RunValue, type TensorMeta } from './run-values.js';
export { createPhiloxGenerator, type PhiloxGenerator } from './philox-generator.js';
