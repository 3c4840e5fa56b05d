#!/usr/bin/env node
// Bundles the GPU entry packages/tsfuser/gpu/host-overhead.ts of a tree into one .mjs, as
// tools/gpu-bundle.mjs does but without touching gpu-bundle/ (other entries stay): for a
// before/after on the GPU host, bundle an older tree (HOST_OVERHEAD_ROOT, from git archive, with
// this entry copied in) and the current one into one folder and run both in one device call.
//   node tools/host-overhead/bundle-gpu.mjs <outfile.mjs>
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const root = process.env.HOST_OVERHEAD_ROOT ?? here;
const outfile = process.argv[2];
if (outfile === undefined) throw new Error('usage: bundle-gpu.mjs <outfile.mjs>');
const alias = { tsfuser: join(root, 'packages/tsfuser/src/index.ts') };
for (const pkg of readdirSync(join(root, 'packages'))) {
  const src = join(root, 'packages', pkg, 'src/index.ts');
  if (pkg !== 'tsfuser' && existsSync(src)) alias[`@tsfuser/${pkg}`] = src;
}
await build({
  entryPoints: [join(root, 'packages/tsfuser/gpu/host-overhead.ts')],
  outfile: resolve(outfile), bundle: true, platform: 'node', format: 'esm', target: 'node20', conditions: ['source'], alias, logLevel: 'warning',
  nodePaths: [join(here, 'node_modules')],
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
console.log(`bundled ${join(root, 'packages/tsfuser/gpu/host-overhead.ts')} -> ${outfile}`);
