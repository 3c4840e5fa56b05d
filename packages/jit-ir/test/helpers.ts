// Shared test helpers: fixture locations and small graph builders.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const FIXTURE_DIR = fileURLToPath(new URL('../../../test-fixtures/torchscript/', import.meta.url));

export function fixtureNames(): string[] {
  return readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.ir'))
    .sort();
}

export function readFixture(name: string): string {
  return readFileSync(join(FIXTURE_DIR, name), 'utf8');
}

export const F4x8 = 'Float(4, 8, strides=[8, 1], requires_grad=0, device=cuda:0)';

/** Every fixture graph's text: the top-level *.ir files and the real PyTorch graphs in real/. */
export function allFixtureTexts(): string[] {
  const realDir = join(FIXTURE_DIR, 'real');
  const real = existsSync(realDir)
    ? readdirSync(realDir)
        .filter((f) => f.endsWith('.ir'))
        .sort()
        .map((f) => readFileSync(join(realDir, f), 'utf8'))
    : [];
  return [...fixtureNames().map(readFixture), ...real];
}
