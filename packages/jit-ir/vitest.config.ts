// This package's tests in the two tiers of vitest.shared.mjs (slow: listed here, relative to the
// package — the parser fuzzer's bounded CI run, 2,000 mutated graphs and schemas).
import { defineConfig } from 'vitest/config';
import { tieredConfig } from '../../vitest.shared.mjs';

export default defineConfig(tieredConfig(import.meta.dirname, ['test/parse-ir-fuzz.test.ts']));
