// Public API of the reference evaluator (HostTensor and float16 helpers are exported from the
// package index directly).
export { evaluate, evalExpr, EvalContext, type EvalValue } from './evaluator.js';
export { castTo, computeKindOf, storeFloat64, type ComputeKind } from './values.js';
export { isRFactorProducer } from './reduction.js';
export * as specialFunctions from './special-functions.js';
export { evalRng, philoxMultiple, rngSpecOf, rngValueAt, rngValues, type RngDtype, type RngSpec } from './random.js';
export { mulhi32, normalDouble, normalFloat, philox, philox4x32, rawUniformDouble, rawUniformFloat, uniformDouble, uniformFloat } from './philox.js';
export { erfcinv as erfcinvValue } from './erfcinv.js';
export { copyInto, stridesInOrder, withDimOrder } from './layout.js';
export { dropoutFactors } from './attention.js';
export { matmulFloat64, type DenseValues } from './matmul.js';
