// Fuzz campaign for the python definition importer (issue 21): mutants of every definition
// fixture either import — and then survive printPython → import with the same id — or fail with
// one DefinitionImportError whose line:col lies inside the text. Never another exception, never
// a raw control character in a message, never a case slower than 5 s.
//
// CI runs TSFUSER_FUZZ_CASES (default 2000) cases from TSFUSER_FUZZ_SEED (default 20261124);
// a longer campaign: TSFUSER_FUZZ_CASES=200000 TSFUSER_FUZZ_SEED=$RANDOM npx vitest run test/python-import-fuzz.test.ts

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tierCount } from '@tsfuser/test-support';
import { DefinitionImportError, FusionCache, importPythonDefinition, importPythonScript } from '../src/index.js';
import { Random } from '../src/io/random.js';
import { FIXTURES } from './helpers.js';
import { mutate, type Mutant } from './python-import-mutator.js';

// The fast test tier (testTier) runs the first 200 cases of the seed unless TSFUSER_FUZZ_CASES says.
const CASES = Number(process.env['TSFUSER_FUZZ_CASES'] ?? tierCount(2000, 200));
const SEED = Number(process.env['TSFUSER_FUZZ_SEED'] ?? 20261124);
const SLOW_MS = 5000;

function seedTexts(): { name: string; text: string }[] {
  const dirs = [FIXTURES, join(FIXTURES, 'nvfuser')];
  return dirs.flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.py'))
      .sort()
      .map((f) => ({ name: f, text: readFileSync(join(dir, f), 'utf8') })),
  );
}

/** Why the importer's answer to `text` breaks the contract ('rejected'/'imported' when it keeps it). */
function contractViolation(text: string): string {
  let imported;
  try {
    imported = importPythonScript(text, { cache: new FusionCache() });
  } catch (e) {
    if (!(e instanceof DefinitionImportError)) return `threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
    const lines = text.replace(/^\ufeff/, '').split(/\r\n?|\n/).length;
    if (!(Number.isInteger(e.line) && e.line >= 1 && e.line <= lines + 1)) return `error line ${e.line} outside 1..${lines + 1}: ${e.message}`;
    if (!(Number.isInteger(e.column) && e.column >= 1)) return `error column ${e.column}: ${e.message}`;
    if (/[\x00-\x1f\x7f-\x9f\u2028\u2029]/.test(e.description)) return `raw control character in the message ${JSON.stringify(e.description)}`;
    return 'rejected';
  }
  const printed = imported.definition.printPython();
  try {
    const again = importPythonDefinition(printed, { cache: imported.definition.cache });
    if (again.id() !== imported.definition.id()) return `printPython round trip changed the id:\n${printed}`;
  } catch (e) {
    return `printPython output does not import (${e instanceof Error ? e.message : String(e)}):\n${printed}`;
  }
  return 'imported';
}

describe(`python importer fuzz (seed ${SEED}, ${CASES} cases)`, () => {
  it('every mutant imports (and round-trips) or fails with one DefinitionImportError at a line:col', () => {
    const seeds = seedTexts();
    expect(seeds.length).toBeGreaterThan(5);
    const rng = new Random(SEED);
    const failures: string[] = [];
    let imported = 0;
    for (let k = 0; k < CASES && failures.length < 5; k += 1) {
      const seed = seeds[rng.int(0, seeds.length)] as { name: string; text: string };
      const mutant: Mutant = mutate(seed.text, rng);
      const start = performance.now();
      const problem = contractViolation(mutant.text);
      const ms = performance.now() - start;
      const ok = problem === 'imported' || problem === 'rejected';
      if (ok && ms <= SLOW_MS) {
        if (problem === 'imported') imported += 1;
        continue;
      }
      const slow = ms > SLOW_MS ? `took ${ms.toFixed(0)} ms` : null;
      const shown = mutant.text.length > 400 ? `${mutant.text.slice(0, 400)}…` : mutant.text;
      failures.push(`seed ${SEED} case ${k} (${seed.name}; ${mutant.steps.join('; ')}): ${ok ? slow : problem}\n${JSON.stringify(shown)}`);
    }
    console.log(`python importer fuzz: seed ${SEED}, ${CASES} cases, ${imported} imported, ${failures.length} contract violations`);
    expect(failures, failures.join('\n\n')).toEqual([]);
  });
});
