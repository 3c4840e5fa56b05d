// Sums the vitest JSON reports of one test run and prints the one line the CI reader understands,
// last: "N passed, N failed". Exits 1 when anything failed.
//
//   node tools/test-summary.mjs [all | fast | slow | tiers] [--failed-step NAME …]
//
// all   (pnpm test)       packages/*/.vitest/results.json (both tiers in one vitest run)
// fast  (pnpm test:fast)  packages/*/.vitest/fast.json
// slow  (pnpm test:slow)  packages/*/.vitest/slow.json
// tiers (.ci/run)         fast.json and slow.json of every package
// The tools' own tests (tools/.vitest/results.json) count in all, fast and tiers. A package is
// expected to report only when its package.json has the script that writes the report; a missing
// report counts as one failure, and so does each `--failed-step` (a CI step such as lint that has
// no tests of its own).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Report file and the package script that writes it, per tier. */
const TIERS = {
  all: [{ file: 'results.json', script: 'test' }],
  fast: [{ file: 'fast.json', script: 'test:fast' }],
  slow: [{ file: 'slow.json', script: 'test:slow' }],
  tiers: [
    { file: 'fast.json', script: 'test:fast' },
    { file: 'slow.json', script: 'test:slow' },
  ],
};
const TOOLS_REPORT = join('tools', '.vitest', 'results.json');

/** `[tier] [--failed-step NAME …]` → { tier, failedSteps }; throws on anything else. */
export function parseArguments(argv) {
  let tier = 'all';
  const failedSteps = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--failed-step') {
      const name = argv[i + 1];
      if (name === undefined) throw new Error('test-summary: --failed-step needs a step name');
      failedSteps.push(name);
      i += 1;
    } else if (arg !== undefined && Object.hasOwn(TIERS, arg)) {
      tier = arg;
    } else {
      throw new Error(`test-summary: unknown argument "${arg}" (tiers: ${Object.keys(TIERS).join(', ')}; --failed-step NAME)`);
    }
  }
  return { tier, failedSteps };
}

/** The reports a tier expects under `root`: [label, path relative to the root]. */
function expectedReports(root, tier) {
  const reports = [];
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    const packageFile = join(root, 'packages', dir, 'package.json');
    if (!existsSync(packageFile)) continue;
    const scripts = JSON.parse(readFileSync(packageFile, 'utf8')).scripts ?? {};
    for (const { file, script } of TIERS[tier]) {
      if (typeof scripts[script] === 'string') reports.push([`packages/${dir} (${script})`, join('packages', dir, '.vitest', file)]);
    }
  }
  if (tier !== 'slow') reports.push(['tools (test:tools)', TOOLS_REPORT]);
  return reports;
}

/**
 * The summary of one run under `root`: one line per expected report (a missing one counts as one
 * failure), one per failed step (one failure each), and last "N passed, N failed".
 * @returns {{ lines: string[], passed: number, failed: number }}
 */
export function summarize(root, tier, failedSteps = []) {
  const lines = [];
  let passed = 0;
  let failed = 0;
  for (const [label, path] of expectedReports(root, tier)) {
    if (!existsSync(join(root, path))) {
      lines.push(`${label}: no test report (${path})`);
      failed += 1;
      continue;
    }
    const json = JSON.parse(readFileSync(join(root, path), 'utf8'));
    const reportPassed = json.numPassedTests ?? 0;
    const reportFailed = (json.numFailedTests ?? 0) + (json.numFailedTestSuites ?? 0);
    passed += reportPassed;
    failed += reportFailed;
    lines.push(`${label}: ${reportPassed} passed, ${reportFailed} failed`);
  }
  for (const step of failedSteps) {
    lines.push(`step ${step}: failed`);
    failed += 1;
  }
  lines.push(`${passed} passed, ${failed} failed`);
  return { lines, passed, failed };
}

function main() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  try {
    const { tier, failedSteps } = parseArguments(process.argv.slice(2));
    const { lines, failed } = summarize(root, tier, failedSteps);
    process.stdout.write(`${lines.join('\n')}\n`);
    process.exit(failed > 0 ? 1 : 0);
  } catch (error) {
    process.stdout.write(`${error instanceof Error ? error.message : String(error)}\n0 passed, 1 failed\n`);
    process.exit(1);
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
