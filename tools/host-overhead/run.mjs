#!/usr/bin/env node
// Bundles tools/host-overhead/host-overhead.ts (workspace packages from their src/, as the GPU
// bundle does) into /tmp and runs it with node; extra arguments go to node before the script
// (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof), `--` then the script's own (--calls N --runs R).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// HOST_OVERHEAD_ROOT: another checkout's tree (an older commit exported with git archive, with
// this script's host-overhead.ts and the current fake device copied in) for before/after runs.
const here = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const root = process.env.HOST_OVERHEAD_ROOT ?? here;
const alias = { tsfuser: join(root, 'packages/tsfuser/src/index.ts') };
for (const pkg of readdirSync(join(root, 'packages'))) {
  const src = join(root, 'packages', pkg, 'src/index.ts');
  if (pkg !== 'tsfuser' && existsSync(src)) alias[`@tsfuser/${pkg}`] = src;
}
const outfile = join(mkdtempSync(join(tmpdir(), 'host-overhead-')), 'host-overhead.mjs');
await build({
  entryPoints: [join(root, 'tools/host-overhead/host-overhead.ts')],
  outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', conditions: ['source'], alias, logLevel: 'warning',
  nodePaths: [join(here, 'node_modules')],
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const nodeArgs = split < 0 ? argv : argv.slice(0, split);
const scriptArgs = split < 0 ? [] : argv.slice(split + 1);
const r = spawnSync(process.execPath, [...nodeArgs, outfile, ...scriptArgs], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
