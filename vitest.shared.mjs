// Shared vitest settings: workspace packages resolve to their TypeScript sources, so a package's
// tests never depend on another package having been built first.
import { fileURLToPath } from 'node:url';
import { readdirSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
