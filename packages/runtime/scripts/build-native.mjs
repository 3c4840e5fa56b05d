#!/usr/bin/env node
// Builds native/ into build/Release/tsfuser_runtime.node with cmake-js, offline.
//
// cmake-js normally downloads Node's headers. Here it is pointed at the headers installed
// beside this Node (`<prefix>/include/node`, e.g. /usr/include/node) through npm's
// `nodedir` setting, which cmake-js reads from npm_config_nodedir. An explicit
// npm_config_nodedir (or nodedir in ~/.npmrc, which npm/pnpm export) wins.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(packageRoot, 'package.json'));

function findNodeDir() {
  const candidates = [process.env.npm_config_nodedir, resolve(dirname(process.execPath), '..'), '/usr'];
  for (const dir of candidates) {
    if (dir && existsSync(join(dir, 'include', 'node', 'node_api.h'))) return dir;
  }
  throw new Error(
    `build-native: no Node headers found (looked for include/node/node_api.h under ${candidates.filter(Boolean).join(', ')}); ` +
      'set npm_config_nodedir to a Node install prefix',
  );
}

const nodeDir = findNodeDir();
const cmakeJs = join(dirname(require.resolve('cmake-js/package.json')), 'bin', 'cmake-js');
const addonApiDir = require('node-addon-api').include_dir.replace(/^"|"$/g, '');
const args = [
  cmakeJs,
  'build',
  '--directory', packageRoot,
  '--out', join(packageRoot, 'build'),
  '--config', 'Release',
  '--runtime', 'node',
  '--runtime-version', process.versions.node,
  '--arch', process.arch,
  '--log-level', process.env.TSFUSER_NATIVE_VERBOSE ? 'verbose' : 'warn',
  `--CDNODE_ADDON_API_DIR=${resolve(packageRoot, addonApiDir)}`,
];
const result = spawnSync(process.execPath, args, {
  cwd: packageRoot,
  stdio: 'inherit',
  env: { ...process.env, npm_config_nodedir: nodeDir },
});
if (result.status !== 0) {
  console.error(`build-native: cmake-js failed (exit ${result.status ?? result.signal})`);
  process.exit(result.status ?? 1);
}
const addon = join(packageRoot, 'build', 'Release', 'tsfuser_runtime.node');
if (!existsSync(addon)) {
  console.error(`build-native: cmake-js succeeded but ${addon} is missing`);
  process.exit(1);
}
console.log(`build-native: ${addon} (node headers from ${nodeDir})`);
