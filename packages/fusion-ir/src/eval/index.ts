// Public API of the reference evaluator.
export { evaluate, EvalContext, type EvalValue } from './evaluator.js';
export { castTo, computeKindOf, type ComputeKind } from './values.js';
export * as specialFunctions from './special-functions.js';
