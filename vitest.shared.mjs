// Shared vitest settings: workspace packages resolve to their TypeScript sources, so a package's
// tests never depend on another package having been built first.
import { fileURLToPath } from 'node:url';
import { readdirSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
