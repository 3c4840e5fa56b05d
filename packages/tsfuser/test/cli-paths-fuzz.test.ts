// The CLI path-option fuzzer's bounded CI run (issue 37): --save-outputs and --inputs paths built
// from pieces that broke the CLI before, through `run` and `fuse`; each case must succeed (files
// read back) or be one line on stderr with exit 1 or 2, never a stack trace or a hang. Longer
// runs: TSFUSER_FUZZ_CASES=5000 TSFUSER_FUZZ_SEED=<n> npx vitest run test/cli-paths-fuzz.test.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tierCount } from '@tsfuser/test-support';
import { runCliPathsFuzz } from './fuzz/cli-paths-fuzzer.js';

const SEED = Number(process.env['TSFUSER_FUZZ_SEED'] ?? 20261201);
const CASES = Number(process.env['TSFUSER_FUZZ_CASES'] ?? tierCount(400, 40));

describe('CLI path-option fuzzer', () => {
  it(`runs ${CASES} cases from seed ${SEED}: every one succeeds or is one clear error`, async () => {
    const report = await runCliPathsFuzz(SEED, CASES, mkdtempSync(join(tmpdir(), 'tsfuser-path-fuzz-')));
    console.log(`cli-paths fuzz: seed ${SEED}, ${CASES} cases; ${[...report.outcomes].sort().map(([k, n]) => `${k}: ${n}`).join(', ')}`);
    const shown = report.failures.slice(0, 10).map((f) => `case ${f.caseIndex} [${f.argv.join(' ')}]: ${f.problem}`);
    expect(shown, `seed ${SEED}: ${report.failures.length} failures`).toEqual([]);
  }, Math.max(60_000, CASES * 300));
});
