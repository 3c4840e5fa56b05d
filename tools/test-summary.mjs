// Sums every package's vitest JSON report (packages/*/.vitest/results.json) and prints the one
// line the CI reader understands: "N passed, N failed". Exits 1 when anything failed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
let passed = 0;
let failed = 0;
let missing = 0;
for (const dir of readdirSync(join(root, 'packages'))) {
  const report = join(root, 'packages', dir, '.vitest', 'results.json');
  if (!existsSync(join(root, 'packages', dir, 'package.json'))) continue;
  if (!existsSync(report)) {
    process.stderr.write(`no test report for packages/${dir}\n`);
    missing += 1;
    continue;
  }
  const json = JSON.parse(readFileSync(report, 'utf8'));
  passed += json.numPassedTests ?? 0;
  failed += (json.numFailedTests ?? 0) + (json.numFailedTestSuites ?? 0);
  process.stdout.write(`packages/${dir}: ${json.numPassedTests} passed, ${json.numFailedTests} failed\n`);
}
failed += missing;
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed > 0 ? 1 : 0);
