// This package's tests in the two tiers of vitest.shared.mjs (no file is slow enough for the slow
// tier yet: list one here, relative to the package, to move it there). Every test file runs with
// test/round-trip-setup.ts: each definition it finalizes must survive printPython → import.
import { defineConfig } from 'vitest/config';
import { tieredConfig } from '../../vitest.shared.mjs';

const config = tieredConfig(import.meta.dirname, []);

export default defineConfig({ ...config, test: { ...config.test, setupFiles: ['test/round-trip-setup.ts'] } });
