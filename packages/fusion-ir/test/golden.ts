// Test-side golden check: goldens live under /test-fixtures/golden/ (paths are relative to it,
// e.g. 'fusion-ir/issue785_presched.txt'); UPDATE_GOLDEN=1 rewrites them, otherwise a mismatch
// or a missing file fails the test with a diff or a hint to run with UPDATE_GOLDEN=1.
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { checkGolden } from '../src/printer/golden.js';

export const GOLDEN_ROOT = fileURLToPath(new URL('../../../test-fixtures/golden/', import.meta.url));

export function goldenPath(relativeOrAbsolute: string): string {
  return isAbsolute(relativeOrAbsolute) ? relativeOrAbsolute : join(GOLDEN_ROOT, relativeOrAbsolute);
}

export function expectGolden(actual: string, path: string): void {
  const result = checkGolden(actual, goldenPath(path), process.env.UPDATE_GOLDEN === '1');
  if (!result.ok) expect.fail(result.diff);
}
