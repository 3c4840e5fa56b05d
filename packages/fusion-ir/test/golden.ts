// Test-side wrapper of checkGolden: goldens live in test-fixtures/golden/, rewritten with UPDATE_GOLDEN=1.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { expect } from 'vitest';
import { checkGolden } from '../src/index.js';

const root = fileURLToPath(new URL('../../../test-fixtures/golden/', import.meta.url));

export function expectGolden(actual: string, relativePath: string): void {
  const result = checkGolden(actual, join(root, relativePath), process.env.UPDATE_GOLDEN === '1');
  expect(result.ok, result.message).toBe(true);
}
