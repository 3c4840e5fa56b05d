// Golden files for graph-fuser dumps, under test-fixtures/golden/ (paths relative to it, e.g.
// 'graph-fuser/parse-jit-ir/seed.txt'); UPDATE_GOLDEN=1 rewrites them. canonicalNames renames
// T/ID/scalar numbers by first appearance, to compare with nvFuser's own dumps.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { checkGolden } from '@tsfuser/fusion-ir';

export const GOLDEN_ROOT = fileURLToPath(new URL('../../../../test-fixtures/golden/', import.meta.url));
export const FIXTURE_ROOT = fileURLToPath(new URL('../../../../test-fixtures/torchscript/', import.meta.url));

export function expectGolden(actual: string, path: string): void {
  const result = checkGolden(actual, join(GOLDEN_ROOT, path), process.env.UPDATE_GOLDEN === '1');
  if (!result.ok) expect.fail(result.diff);
}

export function readFixture(name: string): string {
  return readFileSync(join(FIXTURE_ROOT, name), 'utf8');
}

export function readGolden(path: string): string {
  return readFileSync(join(GOLDEN_ROOT, path), 'utf8');
}

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
