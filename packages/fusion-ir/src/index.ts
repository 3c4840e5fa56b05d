// Public API of @tsfuser/fusion-ir.
export * from './ir/data-type.js';
export * from './ir/types.js';
export * from './ir/errors.js';
export * from './ir/op-types.js';
export * from './ir/val.js';
export * from './ir/scalar.js';
export * from './ir/iter-domain.js';
export * from './ir/tensor-domain.js';
export * from './ir/tensor-view.js';
export * from './ir/expr.js';
export * from './ir/fusion.js';
export * from './ops/index.js';
export * from './transforms/index.js';
export * from './printer/index.js';
export * from './eval/float16.js';
export * from './eval/host-tensor.js';
export * from './eval/index.js';
