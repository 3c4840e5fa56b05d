// Mutational fuzzing of parseIR, seeded from the fixture graphs (test-fixtures/torchscript, real
// PyTorch graphs included), and of parseSchema, seeded from the built-in schema table (a tenth
// as many cases). CI runs FUZZ_CASES (default 2,000) cases from FUZZ_SEED (default
// 20261124, printed); a longer campaign: `FUZZ_CASES=200000 FUZZ_SEED=7 npx vitest run
// test/parse-ir-fuzz.test.ts`. One case is rebuilt with FUZZ_CASE=<index>.
import { describe, expect, it } from 'vitest';
import { BUILTIN_SCHEMAS } from '../src/index.js';
import { checkParseIR, checkParseSchema, type Verdict } from './fuzz/parse-ir-oracle.js';
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
// The default test tier (TSFUSER_TEST_TIER=fast, set by vitest.shared.mjs) runs the first 200 cases
// of the same seed, the slow tier all 2,000. (test-support's testTier() says the same; jit-ir does
// not depend on test-support, which sits above it in the package graph.)
const CASES = envInt('FUZZ_CASES', process.env['TSFUSER_TEST_TIER'] === 'fast' ? 200 : 2000);
const ONLY = process.env['FUZZ_CASE'] === undefined ? null : envInt('FUZZ_CASE', 0);

interface Campaign {
  readonly parsed: number;
  readonly rejected: number;
  readonly crashes: readonly string[];
  readonly cases: number;
}

/** Runs `cases` mutated texts (or only FUZZ_CASE) through `check`, collecting up to 10 crashes. */
function campaign(seeds: readonly string[], cases: number, check: (text: string) => Verdict): Campaign {
  const crashes: string[] = [];
  let parsed = 0;
  let rejected = 0;
  const indices = ONLY === null ? Array.from({ length: cases }, (_, i) => i) : [ONLY];
  for (const index of indices) {
    const { text, steps } = mutate(seeds, seededRandom(caseSeed(SEED, index)));
    const verdict = check(text);
    if (verdict.kind === 'parsed') parsed++;
    else if (verdict.kind === 'rejected') rejected++;
    else if (crashes.length < 10) crashes.push(`case ${index} [${steps.join(', ')}]: ${verdict.reason}\n  reproduce: FUZZ_SEED=${SEED} FUZZ_CASE=${index}\n  text: ${JSON.stringify(text.slice(0, 400))}`);
  }
  return { parsed, rejected, crashes, cases: indices.length };
}

function report(what: string, c: Campaign): void {
  console.log(`${what} fuzz: FUZZ_SEED=${SEED}, ${c.cases} cases: ${c.parsed} parsed and round-tripped, ${c.rejected} rejected with a ParseError, ${c.crashes.length} crashes`);
  expect(c.crashes, `FUZZ_SEED=${SEED}`).toEqual([]);
  // The mutations must leave some texts valid and break others, or the run tests little.
  if (c.cases >= 100) {
    expect(c.parsed).toBeGreaterThan(c.cases / 20);
    expect(c.rejected).toBeGreaterThan(c.cases / 4);
  }
}

describe(`parser fuzz (FUZZ_SEED=${SEED}, FUZZ_CASES=${CASES})`, () => {
  // About 6 ms a case on a quiet machine; the timeout leaves room for a loaded one.
  it('every mutated graph parses and round-trips, or raises one located ParseError', { timeout: Math.max(120_000, CASES * 60) }, () => {
    const seeds = allFixtureTexts();
    expect(seeds.length).toBeGreaterThan(25);
    report('parseIR', campaign(seeds, CASES, checkParseIR));
  });

  it('every mutated schema parses and round-trips, or raises one located ParseError', { timeout: Math.max(60_000, CASES * 10) }, () => {
    report('parseSchema', campaign(BUILTIN_SCHEMAS, Math.ceil(CASES / 10), checkParseSchema));
  });
});
