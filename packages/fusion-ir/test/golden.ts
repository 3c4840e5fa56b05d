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

/**
 * Renames tensors (T7), IterDomains (iS12) and symbolic scalars (i3, d116) to their order of first
 * appearance, so two dumps that differ only in how names were numbered compare equal.
 */
export function canonicalNames(text: string): string {
  const maps = { T: new Map<string, number>(), id: new Map<string, number>(), s: new Map<string, number>() };
  const rename = (m: Map<string, number>, key: string): number => {
    if (!m.has(key)) m.set(key, m.size);
    return m.get(key) as number;
  };
  return text
    .replace(/\bT(\d+)_/g, (_, n: string) => `T#${rename(maps.T, n)}_`)
    .replace(/\b([irb?])(S|V|UR|US|(?:blockIdx|threadIdx)\.[xyz])(\d+)\{/g, (_, t: string, p: string, n: string) => `${t}${p}#${rename(maps.id, n)}{`)
    .replace(/(?<![\w.#])([idfb])(\d+)\b/g, (_, t: string, n: string) => `${t}#${rename(maps.s, t + n)}`);
}
