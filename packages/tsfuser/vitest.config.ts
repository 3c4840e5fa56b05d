// This package's tests in the two tiers of vitest.shared.mjs (slow: listed here, relative to the
// package — the nvcc dumps and the complex/float8 graphs' kernels, which run nvcc, and the two
// fuzzers, thousands of cases each). Every test file runs with test/round-trip-setup.ts: each
// definition it finalizes must survive printPython → import.
import { defineConfig } from 'vitest/config';
import { tieredConfig } from '../../vitest.shared.mjs';

const config = tieredConfig(import.meta.dirname, [
  'test/dumps-nvcc.test.ts',
  'test/torchscript-complex-fp8-nvcc.test.ts',
  'test/execute-inputs-fuzz.test.ts',
  'test/python-import-fuzz.test.ts',
]);

export default defineConfig({ ...config, test: { ...config.test, setupFiles: ['test/round-trip-setup.ts'] } });
