// test-summary on fake runs: which reports each tier expects, missing reports and failed steps
// counted as failures, the last line "N passed, N failed".
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseArguments, summarize } from '../test-summary.mjs';

const roots = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function tree(files) {
  const root = mkdtempSync(join(tmpdir(), 'test-summary-'));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), JSON.stringify(content));
  }
  return root;
}

const TIERED = { scripts: { test: 'vitest run', 'test:fast': 'vitest run --project fast', 'test:slow': 'vitest run --project slow' } };
const report = (passed, failed, failedSuites = 0) => ({ numPassedTests: passed, numFailedTests: failed, numFailedTestSuites: failedSuites });

describe('summarize', () => {
  it('sums fast and slow reports of every tiered package and the tools report for CI', () => {
    const root = tree({
      'packages/a/package.json': TIERED,
      'packages/a/.vitest/fast.json': report(10, 0),
      'packages/a/.vitest/slow.json': report(3, 1),
      'packages/b/package.json': TIERED,
      'packages/b/.vitest/fast.json': report(5, 0, 1),
      'packages/b/.vitest/slow.json': report(0, 0),
      'packages/programs/package.json': { scripts: { typecheck: 'tsc' } },
      'tools/.vitest/results.json': report(12, 0),
    });
    const { lines, passed, failed } = summarize(root, 'tiers');
    expect(passed).toBe(30);
    expect(failed).toBe(2);
    expect(lines.at(-1)).toBe('30 passed, 2 failed');
    expect(lines).toContain('packages/b (test:fast): 5 passed, 1 failed');
    expect(lines.some((line) => line.includes('programs'))).toBe(false);
  });

  it('counts a missing report and each failed step as one failure, naming them', () => {
    const root = tree({
      'packages/a/package.json': TIERED,
      'packages/a/.vitest/results.json': report(7, 0),
      'packages/b/package.json': TIERED,
    });
    const { lines } = summarize(root, 'all', ['lint', 'imports']);
    expect(lines).toEqual([
      'packages/a (test): 7 passed, 0 failed',
      `packages/b (test): no test report (${join('packages', 'b', '.vitest', 'results.json')})`,
      `tools (test:tools): no test report (${join('tools', '.vitest', 'results.json')})`,
      'step lint: failed',
      'step imports: failed',
      '7 passed, 4 failed',
    ]);
  });

  it('the slow tier expects no tools report', () => {
    const root = tree({ 'packages/a/package.json': TIERED, 'packages/a/.vitest/slow.json': report(2, 0) });
    expect(summarize(root, 'slow').lines).toEqual(['packages/a (test:slow): 2 passed, 0 failed', '2 passed, 0 failed']);
  });
});

describe('parseArguments', () => {
  it('reads a tier and repeated --failed-step, rejects anything else', () => {
    expect(parseArguments([])).toEqual({ tier: 'all', failedSteps: [] });
    expect(parseArguments(['tiers', '--failed-step', 'lint', '--failed-step', 'typecheck'])).toEqual({ tier: 'tiers', failedSteps: ['lint', 'typecheck'] });
    expect(() => parseArguments(['--failed-step'])).toThrow('--failed-step needs a step name');
    expect(() => parseArguments(['toString'])).toThrow('unknown argument "toString"');
  });
});
