// This package's tests in the two tiers of vitest.shared.mjs (slow: listed here, relative to the
// package — the nvcc dumps, which run nvcc).
import { defineConfig } from 'vitest/config';
import { tieredConfig } from '../../vitest.shared.mjs';

export default defineConfig(tieredConfig(import.meta.dirname, ['test/dumps-nvcc.test.ts']));
