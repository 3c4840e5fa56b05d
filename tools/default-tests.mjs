// The README's test command (`pnpm test`): builds every package (the device addon and the tsup
// outputs, so `pnpm tsfuser …` works right after), runs the fast test tier of every package and the
// tools' tests, and prints the summary last ("N passed, N failed"). Every step runs even when an
// earlier one failed; a failed build counts as one failure. Output streams as it is produced (a line
// per finished test file, prefixed by its package), so a long run never looks like a hang.
// The slow tier (long random campaigns, large simulations, nvcc of every kernel) is `pnpm test:slow`;
// `.ci/run` runs both tiers.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;

/** Runs one step, inheriting stdio; returns whether it succeeded. */
function step(name, command, args) {
  process.stdout.write(`::: ${name} (at ${elapsed()})\n`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false', ...process.env } });
  const ok = result.status === 0;
  process.stdout.write(`::: ${name}: ${ok ? 'done' : 'FAILED'} (at ${elapsed()})\n`);
  return ok;
}

const nx = ['exec', 'nx', 'run-many', '--output-style=stream'];
const pnpm = process.env.npm_execpath ?? 'pnpm';
const failedSteps = [];
// `node <npm_execpath>` runs the pnpm that started this script whatever is on PATH.
const viaPnpm = (args) => (pnpm.endsWith('.js') || pnpm.endsWith('.cjs') ? [process.execPath, [pnpm, ...args]] : [pnpm, args]);
if (!step('build', ...viaPnpm([...nx, '-t', 'build']))) failedSteps.push('--failed-step', 'build');
step('fast tier', ...viaPnpm([...nx, '-t', 'test:fast']));
step('tools tests', ...viaPnpm(['run', '-s', 'test:tools']));
process.stdout.write(`::: total: ${elapsed()}\n`);
const summary = spawnSync(process.execPath, ['tools/test-summary.mjs', 'fast', ...failedSteps], { cwd: root, stdio: 'inherit' });
process.exit(summary.status ?? 1);
