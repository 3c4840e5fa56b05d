// Shared vitest settings: workspace packages resolve to their TypeScript sources, so a package's
// tests never depend on another package having been built first; `tieredConfig` splits a package's
// tests into the fast and slow tiers.
import { fileURLToPath } from 'node:url';
import { readdirSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDefaults } from 'vitest/config';

// Node 20 has no Map.groupBy, which vitest's default reporter calls when it prints failures: the
// reporter then crashes and the failure messages (a random test's seed, say) are lost. This
// config runs in vitest's main process, where the reporters run, so the polyfill goes here.
if (typeof Map.groupBy !== 'function') {
  Object.defineProperty(Map, 'groupBy', {
    value(items, keyOf) {
      const groups = new Map();
      let i = 0;
      for (const item of items) {
        const key = keyOf(item, i++);
        const group = groups.get(key);
        if (group === undefined) groups.set(key, [item]);
        else group.push(item);
      }
      return groups;
    },
    configurable: true,
    writable: true,
  });
}

const root = fileURLToPath(new URL('.', import.meta.url));
const alias = {};
for (const dir of readdirSync(join(root, 'packages'))) {
  const pkgFile = join(root, 'packages', dir, 'package.json');
  if (!existsSync(pkgFile)) continue;
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
  alias[pkg.name] = join(root, 'packages', dir, 'src', 'index.ts');
}

export const sharedConfig = {
  resolve: { alias },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
  },
};

const TEST_FILES = 'test/**/*.test.ts';

/**
 * The shared settings with the package's tests split into two vitest projects (tiers): `slow`
 * holds the files listed in `slowFiles` (simulator-heavy, nvcc, large random runs; paths relative
 * to the package, e.g. 'test/nvcc.test.ts') at full size, `fast` every test file, the slow ones at
 * the small size they choose with test-support's `testTier()` / `tierCases()` / `tierCount()`.
 * `vitest run --project fast` is the default tier (`pnpm test`), `--project slow` the full
 * campaigns (CI runs both). A listed file that does not exist is an error here, so a rename cannot
 * silently drop a file from the slow tier.
 * @param {string} packageDir the package's directory (`import.meta.dirname` of its vitest.config.ts)
 * @param {string[]} slowFiles
 */
export function tieredConfig(packageDir, slowFiles = []) {
  const missing = slowFiles.filter((file) => !existsSync(join(packageDir, file)));
  if (missing.length > 0) {
    throw new Error(`vitest.config.ts in ${packageDir}: slow test files not found: ${missing.join(', ')}`);
  }
  // Projects extend this config and vitest concatenates arrays when extending, so the root keeps
  // no `include` of its own.
  const { include: _include, ...inherited } = sharedConfig.test;
  return {
    ...sharedConfig,
    test: {
      ...inherited,
      projects: [
        // Every file runs in the fast tier; the slow files size themselves down there through
        // test-support's testTier() (TSFUSER_TEST_TIER), so each kind of test runs by default.
        { extends: true, test: { name: 'fast', include: [TEST_FILES], exclude: [...configDefaults.exclude], env: { TSFUSER_TEST_TIER: 'fast' } } },
        // A project with no files would match the default pattern; this one then matches none.
        { extends: true, test: { name: 'slow', include: slowFiles.length > 0 ? slowFiles : ['test/**/no-slow-tests'], env: { TSFUSER_TEST_TIER: 'slow' } } },
      ],
    },
  };
}
