// The ops API: free functions over explicit tensors and scalars (no global current fusion).
export * from './operand.js';
export * from './type-promotion.js';
export * from './tensor-factory.js';
export * from './unary.js';
export * from './binary.js';
export * from './ternary.js';
export * from './broadcast.js';
export * from './reduction.js';
export * from './shape.js';
export * from './alias.js';
export * from './reshape.js';
export * from './resize.js';
export * from './creation.js';
export * from './statistics.js';
export * from './normalization.js';
export * from './composite.js';
export * from './stride-order.js';
