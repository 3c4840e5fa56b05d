// Codegen's tests in two tiers (vitest.shared.mjs): the slow tier holds the files that simulate
// many kernels or run nvcc on many of them (each over 10 s on the 2-core development machine).
// `test:fast` runs with --no-isolate: its files keep no global state between them, and importing
// the sources once instead of per file took codegen's fast tier from 36 to 25 CPU-seconds.
import { defineConfig } from 'vitest/config';
import { tieredConfig } from '../../vitest.shared.mjs';

export default defineConfig(
  tieredConfig(import.meta.dirname, [
    'test/inner-outer-persistent-simulation.test.ts',
    'test/inner-outer-persistent-simulation-variants.test.ts',
    'test/outer-persistent.test.ts',
    'test/inner-outer-random.test.ts',
    'test/inner-outer-rows-block-random.test.ts',
    'test/nvcc.test.ts',
    'test/normalization.test.ts',
    'test/reduction.test.ts',
    'test/welford.test.ts',
    'test/resize-nvcc.test.ts',
    'test/resize-2d-ptx.test.ts',
    'test/lowering-passes-corpus.test.ts',
    'test/indexing-random.test.ts',
    'test/unrolled-loads-first-nvcc.test.ts',
    'test/reshape-nvcc.test.ts',
    'test/persistent-reshape-nvcc.test.ts',
    'test/persistent-reshape-ptx.test.ts',
    'test/persistent-resize-nvcc.test.ts',
    'test/persistent-resize-random-sweep.test.ts',
    'test/resize-reduction-nvcc.test.ts',
    'test/greedy-nvcc.test.ts',
    'test/transpose.test.ts',
    'test/transpose-random.test.ts',
    'test/transpose-nvcc.test.ts',
    'test/greedy-scatter-nvcc.test.ts',
    'test/fp8-nvcc.test.ts',
    'test/uint64-nvcc.test.ts',
    'test/complex-host.test.ts',
    'test/default-registry-outer.test.ts',
    'test/shape-ops-fixtures.test.ts',
    'test/resize-random.test.ts',
    'test/permute-reduction-nvcc.test.ts',
    'test/reduction-reshape-nvcc.test.ts',
    'test/reduction-broadcast-join-nvcc.test.ts',
    'test/attention-nvcc.test.ts',
  ]),
);
