// @tsfuser/test-support: helpers shared by the packages' tests and the GPU suites (private,
// never published; production code may not import it — tools/check-imports.mjs enforces that).
export * from './random.js';
export * from './fixtures.js';
export * from './batch-norm-fixtures.js';
export * from './layer-norm-backward-fixtures.js';
export * from './normalization-fixtures.js';
export * from './outer-persistent-fixtures.js';
export * from './reduction-fixtures.js';
export * from './rng-fixtures.js';
export * from './shape-ops-values.js';
export * from './shape-ops-fixtures.js';
export * from './shape-ops-random.js';
export * from './resize-fixtures.js';
export * from './resize-random.js';
export * from './indexing-fixtures.js';
export * from './reshape-fixtures.js';
export * from './reshape-random.js';
export * from './persistent-reshape-fixtures.js';
export * from './persistent-reshape-random.js';
export * from './persistent-reshape-vector-fixtures.js';
export * from './stride-order-fixtures.js';
export * from './scan-sort-fixtures.js';
export * from './transpose-fixtures.js';
export * from './scatter-fixtures.js';
export * from './fp8-fixtures.js';
export * from './uint64-fixtures.js';
export * from './complex-fixtures.js';
