#!/usr/bin/env node
// Builds gpu-bundle/: everything needed to run tsfuser's GPU programs on a host that has a
// GPU, CUDA and NVRTC but no Node.js (the device machine reached through `run`).
//
//   pnpm gpu:bundle [entry-name …]        # all entries, or only the named ones
//   node tools/gpu-bundle.mjs --list      # the entries and where each is declared; builds nothing
//   node tools/gpu-bundle.mjs --check [entry-name …]   # esbuild-bundles each entry in memory
//                                         # (no addon, no node.xz): every import resolves
//   bash gpu-bundle/run.sh <entry-name> [args …]   # on the GPU host
//
// Contents: node.xz (this machine's node, xz -9), tsfuser_runtime.node (the addon), one
// self-contained ESM bundle <name>.mjs per entry (esbuild; workspace packages bundled from
// their TypeScript sources), run.sh, manifest.json.
//
// Entries: every package may list its own in its package.json,
//   "tsfuser": { "gpuEntries": [{ "name": "runtime-smoke", "entry": "runtime/smoke.ts" }] }
// (entry relative to the package; the GPU programs of the pipeline packages live in the private
// packages/gpu-suites, tsfuser's in packages/tsfuser/gpu), and EXTRA_ENTRIES below takes repository-level ones (entry
// relative to the repository root). An entry whose file does not exist yet is skipped with a
// message, so entries can be declared before they are written.

import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'gpu-bundle');
const addonSource = join(root, 'packages', 'device', 'build', 'Release', 'tsfuser_runtime.node');
const MAX_BUNDLE_BYTES = 60 * 1024 * 1024;

/** Repository-level entries: { name, entry (from the repo root), description? }. */
const EXTRA_ENTRIES = [];

function workspacePackages() {
  const packages = [];
  for (const dir of readdirSync(join(root, 'packages'))) {
    const file = join(root, 'packages', dir, 'package.json');
    if (!existsSync(file)) continue;
    packages.push({ dir: join(root, 'packages', dir), json: JSON.parse(readFileSync(file, 'utf8')) });
  }
  return packages;
}

function collectEntries(packages) {
  const entries = [];
  for (const { dir, json } of packages) {
    for (const item of json.tsfuser?.gpuEntries ?? []) {
      entries.push({ ...item, entry: join(dir, item.entry), declaredIn: `${relative(root, dir)}/package.json` });
    }
  }
  for (const item of EXTRA_ENTRIES) {
    entries.push({ ...item, entry: join(root, item.entry), declaredIn: 'tools/gpu-bundle.mjs' });
  }
  const names = new Set();
  for (const entry of entries) {
    if (!/^[A-Za-z0-9._-]+$/.test(entry.name)) throw new Error(`gpu-bundle: bad entry name "${entry.name}" (${entry.declaredIn})`);
    if (names.has(entry.name)) throw new Error(`gpu-bundle: entry "${entry.name}" declared twice`);
    names.add(entry.name);
  }
  return entries;
}

function buildAddon() {
  const script = join(root, 'packages', 'device', 'scripts', 'build-native.mjs');
  const result = spawnSync(process.execPath, [script], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0 || !existsSync(addonSource)) throw new Error('gpu-bundle: building the device addon failed');
}

/** xz -9 of this node, reused while node itself is unchanged (compressing takes a while). */
function packNode() {
  const target = join(outDir, 'node.xz');
  const stampFile = join(outDir, 'node.xz.stamp');
  const stat = statSync(process.execPath);
  const stamp = `${process.execPath} ${process.version} ${stat.size} ${stat.mtimeMs}`;
  if (existsSync(target) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) {
    console.log(`gpu-bundle: node.xz up to date (${process.version})`);
    return;
  }
  console.log(`gpu-bundle: compressing ${process.execPath} (${process.version}) with xz -9 -T0 …`);
  const started = Date.now();
  execFileSync('sh', ['-c', 'xz -9 -T0 -c "$0" > "$1.tmp" && mv "$1.tmp" "$1"', process.execPath, target], { stdio: 'inherit' });
  writeFileSync(stampFile, stamp);
  console.log(`gpu-bundle: node.xz in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

async function bundleEntry(entry, alias, write = true) {
  const outfile = join(outDir, `${entry.name}.mjs`);
  const result = await build({
    write,
    entryPoints: [entry.entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    alias,
    sourcemap: 'linked',
    logLevel: 'warning',
    // ESM output may still meet CommonJS code in dependencies: give it a require.
    banner: {
      js: "import { createRequire as __tsfuserCreateRequire } from 'node:module'; const require = __tsfuserCreateRequire(import.meta.url);",
    },
  });
  if (!write) return result.outputFiles.reduce((sum, file) => (file.path.endsWith('.mjs') ? sum + file.contents.length : sum), 0);
  return statSync(outfile).size;
}

const RUN_SH = `#!/usr/bin/env bash
# Runs one entry of the tsfuser GPU bundle on a host without Node.js:
#   bash gpu-bundle/run.sh <entry-name> [args …]
# Unpacks node (once per version) to /tmp, points the runtime at the addon beside this script,
# and finds NVRTC when it is not on the loader path. Set TSFUSER_NODE to use another node.
set -euo pipefail
here="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
name="\${1:-}"
if [[ -z "$name" || ! -f "$here/$name.mjs" ]]; then
  echo "usage: run.sh <entry-name> [args …]; entries:" >&2
  for f in "$here"/*.mjs; do echo "  $(basename "$f" .mjs)" >&2; done
  exit 2
fi
shift

node="\${TSFUSER_NODE:-/tmp/tsfuser-node-$(cat "$here/node.version")}"
if [[ ! -x "$node" ]]; then
  xz -dc "$here/node.xz" > "$node.tmp.$$"
  chmod +x "$node.tmp.$$"
  mv "$node.tmp.$$" "$node"
fi

export TSFUSER_ADDON_PATH="\${TSFUSER_ADDON_PATH:-$here/tsfuser_runtime.node}"

# The driver's libcuda.so.1 is normally on the loader path; containers sometimes mount it apart.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\\.so\\.1'; then
  for dir in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib64 /usr/lib/wsl/lib; do
    if [[ -f "$dir/libcuda.so.1" ]]; then
      export LD_LIBRARY_PATH="$dir\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
      break
    fi
  done
fi

# NVRTC: the runtime dlopens libnvrtc.so.13/.12/…; if the loader cannot see one, look in the
# usual CUDA and Python (nvidia-cuda-nvrtc wheel) places and say which one is used.
find_nvrtc() {
  local candidate
  for candidate in /usr/local/cuda/lib64/libnvrtc.so.13 /usr/local/cuda/lib64/libnvrtc.so.12 \\
      /usr/local/cuda-*/lib64/libnvrtc.so.1[0-9]; do
    [[ -f "$candidate" ]] && { echo "$candidate"; return; }
  done
  { find /opt /usr/local/lib /usr/lib/python3* -maxdepth 9 -name 'libnvrtc.so.1[0-9]' 2>/dev/null || true; } | sort -r | head -n 1
}
if [[ -z "\${TSFUSER_NVRTC_PATH:-}" ]] && ! ldconfig -p 2>/dev/null | grep -q 'libnvrtc\\.so\\.1[0-9]'; then
  nvrtc="$(find_nvrtc)"
  if [[ -n "$nvrtc" ]]; then
    export TSFUSER_NVRTC_PATH="$nvrtc"
    export LD_LIBRARY_PATH="$(dirname "$nvrtc")\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    echo "run.sh: NVRTC from $nvrtc" >&2
  fi
fi

exec "$node" --enable-source-maps "$here/$name.mjs" "$@"
`;

function gitCommit() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

const USAGE = `usage: node tools/gpu-bundle.mjs [--list | --check] [entry-name …]
  (no flag)  build gpu-bundle/: the addon, node.xz, one bundle per entry (all, or the named ones)
  --list     print every entry, its file and the package.json declaring it; build nothing
  --check    bundle each entry in memory (no addon, no node.xz, nothing written): every import resolves`;

/** Workspace packages resolve to their TypeScript sources (as in vitest.shared.mjs). */
function sourceAliases(packages) {
  const alias = {};
  for (const { dir, json } of packages) alias[json.name] = join(dir, 'src', 'index.ts');
  return alias;
}

function listEntries(entries) {
  const width = Math.max(...entries.map((e) => e.name.length));
  for (const entry of entries) {
    const missing = existsSync(entry.entry) ? '' : '  (file missing: skipped)';
    console.log(`${entry.name.padEnd(width)}  ${relative(root, entry.entry)}  [${entry.declaredIn}]${missing}`);
  }
  console.log(`gpu-bundle: ${entries.length} entries`);
}

async function checkEntries(entries, packages) {
  const alias = sourceAliases(packages);
  let failed = 0;
  for (const entry of entries) {
    if (!existsSync(entry.entry)) {
      console.log(`gpu-bundle: skipping ${entry.name}: ${relative(root, entry.entry)} does not exist yet (${entry.declaredIn})`);
      continue;
    }
    try {
      const bytes = await bundleEntry(entry, alias, false);
      console.log(`gpu-bundle: ${entry.name} bundles (${(bytes / 1024).toFixed(0)} KiB) ← ${relative(root, entry.entry)}`);
    } catch (error) {
      failed += 1;
      console.error(`gpu-bundle: ${entry.name} does not bundle: ${error instanceof Error ? error.message : error}`);
    }
  }
  if (failed > 0) throw new Error(`gpu-bundle: ${failed} of ${entries.length} entries do not bundle`);
  console.log(`gpu-bundle: all ${entries.length} entries bundle`);
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return;
  }
  const mode = args.includes('--list') ? 'list' : args.includes('--check') ? 'check' : 'build';
  const unknown = args.filter((a) => a.startsWith('-') && a !== '--list' && a !== '--check');
  if (unknown.length > 0) throw new Error(`gpu-bundle: unknown option ${unknown.join(' ')}\n${USAGE}`);
  const only = new Set(args.filter((a) => !a.startsWith('-')));
  const packages = workspacePackages();
  const entries = collectEntries(packages).filter((e) => only.size === 0 || only.has(e.name));
  for (const name of only) {
    if (!entries.some((e) => e.name === name)) throw new Error(`gpu-bundle: no entry named "${name}"`);
  }
  if (mode === 'list') return listEntries(entries);
  if (mode === 'check') return checkEntries(entries, packages);

  mkdirSync(outDir, { recursive: true });
  for (const file of readdirSync(outDir)) {
    if (file !== 'node.xz' && file !== 'node.xz.stamp') rmSync(join(outDir, file), { recursive: true, force: true });
  }

  buildAddon();
  copyFileSync(addonSource, join(outDir, 'tsfuser_runtime.node'));
  packNode();
  writeFileSync(join(outDir, 'node.version'), `${process.version}\n`);

  const alias = sourceAliases(packages);

  const bundled = [];
  for (const entry of entries) {
    if (!existsSync(entry.entry)) {
      console.log(`gpu-bundle: skipping ${entry.name}: ${relative(root, entry.entry)} does not exist yet (${entry.declaredIn})`);
      continue;
    }
    const bytes = await bundleEntry(entry, alias);
    bundled.push({ name: entry.name, entry: relative(root, entry.entry), description: entry.description ?? '', bytes });
    console.log(`gpu-bundle: ${entry.name}.mjs ← ${relative(root, entry.entry)} (${(bytes / 1024).toFixed(0)} KiB)`);
  }

  writeFileSync(join(outDir, 'run.sh'), RUN_SH, { mode: 0o755 });
  writeFileSync(
    join(outDir, 'manifest.json'),
    `${JSON.stringify({ commit: gitCommit(), built: new Date().toISOString(), node: process.version, entries: bundled }, null, 2)}\n`,
  );

  const total = readdirSync(outDir).reduce((sum, file) => sum + statSync(join(outDir, file)).size, 0);
  console.log(`gpu-bundle: ${bundled.length} entries, ${(total / 2 ** 20).toFixed(1)} MiB in ${relative(process.cwd(), outDir) || outDir}`);
  if (total > MAX_BUNDLE_BYTES) throw new Error(`gpu-bundle: ${total} bytes exceeds the ${MAX_BUNDLE_BYTES}-byte budget`);
  console.log('gpu-bundle: run on the GPU host with carry ["gpu-bundle"]: bash gpu-bundle/run.sh <entry-name>');
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
