#!/usr/bin/env node
// Builds native/ into build/Release/tsfuser_runtime.node with cmake-js, offline.
//
// cmake-js normally downloads Node's headers. Here it is pointed at the headers installed
// beside this Node (`<prefix>/include/node`, e.g. /usr/include/node) through npm's
// `nodedir` setting, which cmake-js reads from npm_config_nodedir. An explicit
// npm_config_nodedir (or nodedir in ~/.npmrc, which npm/pnpm export) wins. Where no Node
// headers are installed (a bare Node tarball without include/, some CI images), a header-only
// nodedir is assembled in build/nodedir from the node-api-headers package that cmake-js
// depends on: the addon uses Node-API alone, so node_api.h and js_native_api.h suffice.
//
// TSFUSER_SKIP_NATIVE=1 skips the build (the package then reports the addon as missing).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(packageRoot, 'package.json'));

function findNodeDir() {
  const candidates = [process.env.npm_config_nodedir, resolve(dirname(process.execPath), '..'), '/usr'];
  if (!process.env.TSFUSER_NODE_API_HEADERS_ONLY) {
    for (const dir of candidates) {
      if (dir && existsSync(join(dir, 'include', 'node', 'node.h')) && existsSync(join(dir, 'include', 'node', 'node_api.h'))) {
        return dir;
      }
    }
  }
  return headerOnlyNodeDir();
}

/** build/nodedir/include/node with node-api-headers' files and a stub node.h (cmake-js checks it exists). */
function headerOnlyNodeDir() {
  const cmakeJsRequire = createRequire(require.resolve('cmake-js/package.json'));
  const headers = cmakeJsRequire('node-api-headers');
  const nodeDir = join(packageRoot, 'build', 'nodedir');
  const include = join(nodeDir, 'include', 'node');
  mkdirSync(include, { recursive: true });
  for (const file of ['node_api.h', 'node_api_types.h', 'js_native_api.h', 'js_native_api_types.h']) {
    copyFileSync(join(headers.include_dir, file), join(include, file));
  }
  writeFileSync(join(include, 'node.h'), '// stub: tsfuser_runtime uses Node-API only (node_api.h)\n');
  console.log(`build-native: no installed Node headers; using node-api-headers ${headers.include_dir}`);
  return nodeDir;
}

if (process.env.TSFUSER_SKIP_NATIVE === '1') {
  console.log('build-native: skipped (TSFUSER_SKIP_NATIVE=1)');
  process.exit(0);
}
const nodeDir = findNodeDir();
const cmakeJs = join(dirname(require.resolve('cmake-js/package.json')), 'bin', 'cmake-js');
// node-addon-api reports include_dir relative to the process's cwd, not to its package.
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
  `--CDNODE_ADDON_API_DIR=${resolve(process.cwd(), addonApiDir)}`,
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
