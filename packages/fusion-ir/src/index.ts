// Public API of @tsfuser/fusion-ir.
export * from './ir/data-type.js';
export * from './eval/float16.js';
export * from './eval/host-tensor.js';
