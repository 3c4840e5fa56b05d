// The execute-inputs fuzzer's bounded CI run (issue 21): 2,000 cases from a fixed seed through
// fd.execute and the CLI's input parsers; every case must be right or one of the project's input
// errors. Longer runs: TSFUSER_FUZZ_CASES=200000 TSFUSER_FUZZ_SEED=<n> npx vitest run
// test/execute-inputs-fuzz.test.ts (the seed and every failure's case seed are printed).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tierCount } from '@tsfuser/test-support';
import { runExecuteInputsFuzz } from './fuzz/execute-inputs-fuzzer.js';

const SEED = Number(process.env['TSFUSER_FUZZ_SEED'] ?? 20261124);
// The fast test tier (testTier) runs the first 150 cases of the seed unless TSFUSER_FUZZ_CASES says.
const CASES = Number(process.env['TSFUSER_FUZZ_CASES'] ?? tierCount(2000, 150));

describe('execute-inputs fuzzer', () => {
  it(`runs ${CASES} cases from seed ${SEED} without a crash, a silent wrong answer or an allocation past the limits`, async () => {
    const report = await runExecuteInputsFuzz(SEED, CASES, mkdtempSync(join(tmpdir(), 'tsfuser-fuzz-')));
    const outcomes = [...report.outcomes].sort().map(([k, n]) => `${k}: ${n}`).join(', ');
    console.log(`execute-inputs fuzz: seed ${SEED}, ${CASES} cases; ${outcomes}`);
    const shown = report.failures.slice(0, 10).map((f) => `case ${f.caseIndex} (case seed ${f.caseSeed}, ${f.target}) ${f.mutation}: ${f.problem}`);
    expect(shown, `seed ${SEED}: ${report.failures.length} failures`).toEqual([]);
    // Every entry and both outcomes were exercised.
    for (const target of ['execute', 'cli-text', 'script', 'shape']) {
      expect([...report.outcomes.keys()].some((k) => k.startsWith(`${target}/ok`)), `${target} ok`).toBe(true);
      expect([...report.outcomes.keys()].some((k) => k.startsWith(`${target}/refused`)), `${target} refused`).toBe(true);
    }
  }, Math.max(60_000, CASES * 5));
});
