// This package's tests in the two tiers of vitest.shared.mjs (no file is slow enough for the slow
// tier yet: list one here, relative to the package, to move it there).
import { defineConfig } from 'vitest/config';
import { tieredConfig } from '../../vitest.shared.mjs';

export default defineConfig(tieredConfig(import.meta.dirname, []));
