// Shared tsup settings of the workspace packages: ESM for Node 20 with declarations.
// tsup 8 (the last line that supports Node 20) builds declarations with a `baseUrl` that
// TypeScript 6 deprecates and turns into error TS5101; `ignoreDeprecations` keeps the build
// on TypeScript 6 until the toolchain moves to Node 22.

/**
 * The tsup config of a package.
 * @param {{ entry?: string[], dtsEntry?: string }} [options] entries (default src/index.ts) and
 *   the one entry whose declarations are emitted (default: all entries)
 */
export function packageTsupConfig(options = {}) {
  const entry = options.entry ?? ['src/index.ts'];
  const compilerOptions = { ignoreDeprecations: '6.0' };
  return {
    entry,
    format: ['esm'],
    dts: options.dtsEntry === undefined ? { compilerOptions } : { entry: options.dtsEntry, compilerOptions },
    clean: true,
    target: 'node20',
    sourcemap: true,
  };
}
