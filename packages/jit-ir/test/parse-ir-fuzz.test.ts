// Mutational fuzzing of parseIR, seeded from the fixture graphs (test-fixtures/torchscript, real
// PyTorch graphs included). CI runs FUZZ_CASES (default 2,000) cases from FUZZ_SEED (default
// 20261124, printed); a longer campaign: `FUZZ_CASES=200000 FUZZ_SEED=7 npx vitest run
// test/parse-ir-fuzz.test.ts`. One case is rebuilt with FUZZ_CASE=<index>.
import { describe, expect, it } from 'vitest';
import { checkParseIR } from './fuzz/parse-ir-oracle.js';
import { caseSeed, mutate, seededRandom } from './fuzz/text-mutator.js';
import { allFixtureTexts } from './helpers.js';

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isSafeInteger(v) || v < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return v;
}

const SEED = envInt('FUZZ_SEED', 20261124);
const CASES = envInt('FUZZ_CASES', 2000);
const ONLY = process.env['FUZZ_CASE'] === undefined ? null : envInt('FUZZ_CASE', 0);

describe(`parseIR fuzz (FUZZ_SEED=${SEED}, FUZZ_CASES=${CASES})`, () => {
  // About 6 ms a case on a quiet machine; the timeout leaves room for a loaded one.
  it('every mutated graph parses and round-trips, or raises one located ParseError', { timeout: Math.max(120_000, CASES * 60) }, () => {
    const seeds = allFixtureTexts();
    expect(seeds.length).toBeGreaterThan(25);
    const crashes: string[] = [];
    let parsed = 0;
    let rejected = 0;
    const indices = ONLY === null ? Array.from({ length: CASES }, (_, i) => i) : [ONLY];
    for (const index of indices) {
      const { text, steps } = mutate(seeds, seededRandom(caseSeed(SEED, index)));
      const verdict = checkParseIR(text);
      if (verdict.kind === 'parsed') parsed++;
      else if (verdict.kind === 'rejected') rejected++;
      else if (crashes.length < 10) crashes.push(`case ${index} [${steps.join(', ')}]: ${verdict.reason}\n  reproduce: FUZZ_SEED=${SEED} FUZZ_CASE=${index}\n  text: ${JSON.stringify(text.slice(0, 400))}`);
    }
    console.log(`parseIR fuzz: FUZZ_SEED=${SEED}, ${indices.length} cases: ${parsed} parsed and round-tripped, ${rejected} rejected with a ParseError, ${crashes.length} crashes`);
    expect(crashes, `FUZZ_SEED=${SEED}`).toEqual([]);
    // The mutations must leave some graphs valid and break others, or the run tests little.
    if (indices.length >= 1000) {
      expect(parsed).toBeGreaterThan(indices.length / 20);
      expect(rejected).toBeGreaterThan(indices.length / 4);
    }
  });
});
