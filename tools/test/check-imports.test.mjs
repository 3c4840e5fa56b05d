// The import-order check on small fake workspaces written to a temporary directory: one clean
// tree, then one tree per rule with a single violation that must be named by file and line.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkWorkspace, findImports, formatViolations, packageNameOf } from '../check-imports.mjs';
import { PACKAGE_ORDER, allowedImports, validatePackageOrder } from '../package-order.mjs';

const ORDER = [
  { name: '@x/ir', uses: [] },
  { name: '@x/front', uses: ['@x/ir'] },
  { name: '@x/helpers', private: true },
  { name: '@x/back', uses: ['@x/ir'] },
  { name: '@x/programs', private: true },
];

const roots = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** Writes `files` (path → text; objects become JSON) under a fresh directory. */
function tree(files) {
  const root = mkdtempSync(join(tmpdir(), 'check-imports-'));
  roots.push(root);
  const all = { 'package.json': { name: 'root', private: true, devDependencies: { vitest: '1' } }, ...files };
  for (const [path, content] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  }
  return root;
}

/** A clean workspace; `extra` adds or replaces files. */
function workspace(extra = {}) {
  return tree({
    'packages/ir/package.json': { name: '@x/ir' },
    'packages/ir/src/index.ts': "import { readFileSync } from 'node:fs';\nimport { join } from 'path';\nexport * from './node.js';\n",
    'packages/ir/src/node.ts': 'export const node = 1;\n',
    'packages/ir/test/node.test.ts': "import { it } from 'vitest';\nimport { node } from '../src/index.js';\nimport { node as again } from '@x/ir';\n",
    'packages/ir/vitest.config.ts': "import { sharedConfig } from '../../vitest.shared.mjs';\n",
    'packages/front/package.json': { name: '@x/front', dependencies: { '@x/ir': 'workspace:*' } },
    'packages/front/src/index.ts': "import { node } from '@x/ir';\n",
    'packages/helpers/package.json': { name: '@x/helpers', private: true, dependencies: { '@x/ir': 'workspace:*', '@x/front': 'workspace:*' } },
    'packages/helpers/src/index.ts': "import { node } from '@x/ir';\nimport '@x/front';\n",
    'packages/back/package.json': { name: '@x/back', dependencies: { '@x/ir': 'workspace:*', lodash: '1' }, devDependencies: { '@x/helpers': 'workspace:*' } },
    'packages/back/src/index.ts': "import { node } from '@x/ir';\nimport lodash from 'lodash';\n",
    'packages/back/test/back.test.ts': "import { expect } from 'vitest';\nimport { helper } from '@x/helpers';\nimport { back } from '../src/index.js';\n",
    'packages/programs/package.json': { name: '@x/programs', private: true, dependencies: { '@x/back': 'workspace:*', '@x/helpers': 'workspace:*' } },
    'packages/programs/suites/suite.ts': "import { back } from '@x/back';\nimport { helper } from '@x/helpers';\nimport './report.js';\n",
    'packages/programs/suites/report.ts': 'export {};\n',
    ...extra,
  });
}

function check(root) {
  return formatViolations(checkWorkspace(root, ORDER));
}

describe('findImports', () => {
  it('finds static, type, re-export, side-effect, dynamic and require imports with their lines, not comments or strings', () => {
    const text = [
      "import type { A } from 'a';",
      'import {',
      '  b,',
      "} from 'b';",
      "export * from './c.js';",
      "import 'd';",
      "const e = await import('e');",
      "const f = require('f');",
      "// import g from 'g';",
      "const s = \"import h from 'h'\";",
      "type T = import('t').T;",
    ].join('\n');
    expect(findImports(text)).toEqual([
      { specifier: 'a', line: 1 },
      { specifier: 'b', line: 4 },
      { specifier: './c.js', line: 5 },
      { specifier: 'd', line: 6 },
      { specifier: 'e', line: 7 },
      { specifier: 'f', line: 8 },
      { specifier: 't', line: 11 },
    ]);
  });

  it('names the package of a deep or scoped specifier', () => {
    expect(packageNameOf('@x/ir/src/node.js')).toBe('@x/ir');
    expect(packageNameOf('vitest/config')).toBe('vitest');
    expect(packageNameOf('lodash')).toBe('lodash');
  });
});

describe('package order', () => {
  it("gives public packages their stages, private ones everything above, and private packages to those below only for development", () => {
    expect([...(allowedImports(ORDER, '@x/back') ?? [])]).toEqual([['@x/ir', 'production'], ['@x/helpers', 'development']]);
    expect([...(allowedImports(ORDER, '@x/helpers') ?? [])]).toEqual([['@x/ir', 'production'], ['@x/front', 'production']]);
    expect(allowedImports(ORDER, '@x/unknown')).toBeUndefined();
  });

  it('rejects a table whose uses point below, duplicate names, and private stages with uses', () => {
    expect(validatePackageOrder([{ name: 'a', uses: ['b'] }, { name: 'b', uses: [] }])).toEqual(['a uses b, which is not above it in the order']);
    expect(validatePackageOrder([{ name: 'a', uses: [] }, { name: 'a', uses: [] }])).toEqual(['a is listed twice']);
    expect(validatePackageOrder([{ name: 'p', private: true, uses: [] }, { name: 'q' }])).toHaveLength(2);
  });

  it("the repository's own order is a valid table", () => {
    expect(validatePackageOrder(PACKAGE_ORDER)).toEqual([]);
  });

  it("the repository's device layer sits below the orchestration and uses no fusion stage above fusion-ir", () => {
    expect([...(allowedImports(PACKAGE_ORDER, '@tsfuser/device') ?? [])].filter(([, role]) => role === 'production')).toEqual([['@tsfuser/fusion-ir', 'production']]);
    expect(allowedImports(PACKAGE_ORDER, '@tsfuser/runtime')?.get('@tsfuser/device')).toBe('production');
    expect(allowedImports(PACKAGE_ORDER, '@tsfuser/codegen')?.has('@tsfuser/device')).toBe(false);
    expect(allowedImports(PACKAGE_ORDER, '@tsfuser/device')?.has('@tsfuser/runtime')).toBe(false);
  });

  it('fails a device-layer import of the orchestration (@tsfuser/device → @tsfuser/runtime), even when declared', () => {
    const root = tree({
      'packages/fusion-ir/package.json': { name: '@tsfuser/fusion-ir' },
      'packages/fusion-ir/src/index.ts': 'export const ir = 1;\n',
      'packages/device/package.json': { name: '@tsfuser/device', dependencies: { '@tsfuser/fusion-ir': 'workspace:*', '@tsfuser/runtime': 'workspace:*' } },
      'packages/device/src/index.ts': "import { ir } from '@tsfuser/fusion-ir';\nimport { FusionExecutorCache } from '@tsfuser/runtime';\n",
      'packages/runtime/package.json': { name: '@tsfuser/runtime', dependencies: { '@tsfuser/device': 'workspace:*' } },
      'packages/runtime/src/index.ts': "import { Tensor } from '@tsfuser/device';\n",
    });
    const violations = formatViolations(checkWorkspace(root, PACKAGE_ORDER));
    expect(violations.length).toBeGreaterThan(0);
    expect(violations.every((v) => v.includes('packages/device/') && v.includes('@tsfuser/runtime'))).toBe(true);
    expect(violations.some((v) => /packages\/device\/src\/index\.ts:2\b/.test(v))).toBe(true);
  });
});

describe('checkWorkspace', () => {
  it('accepts a clean workspace (relative, builtin, self, declared, root devDependencies, private helpers in tests; package-root config files ignored)', () => {
    expect(check(workspace())).toEqual([]);
  });

  it('names an import against the order with file and line, even when declared', () => {
    const root = workspace({
      'packages/ir/package.json': { name: '@x/ir', dependencies: { '@x/back': 'workspace:*' } },
      'packages/ir/src/index.ts': "export const a = 1;\nimport { back } from '@x/back';\n",
    });
    expect(check(root)).toEqual([
      'packages/ir/package.json:4: import \'@x/back\': @x/ir declares @x/back in dependencies, against the package order (@x/ir may import no workspace package)',
      "packages/ir/src/index.ts:2: import '@x/back': @x/ir may not import @x/back: against the package order (@x/ir may import no workspace package)",
    ]);
  });

  it('rejects a public package importing a sibling stage it does not build on', () => {
    const root = workspace({
      'packages/back/test/front.test.ts': "import '@x/front';\n",
    });
    expect(check(root)).toEqual([
      "packages/back/test/front.test.ts:1: import '@x/front': @x/back may not import @x/front: against the package order (@x/back may import @x/ir, @x/helpers)",
    ]);
  });

  it('rejects an undeclared package, and a devDependency used from production code', () => {
    const root = workspace({
      'packages/back/src/extra.ts': "import { z } from 'zod';\nimport { it } from 'vitest';\n",
    });
    expect(check(root)).toEqual([
      "packages/back/src/extra.ts:1: import 'zod': zod is not declared in packages/back/package.json dependencies",
      "packages/back/src/extra.ts:2: import 'vitest': vitest is not declared in packages/back/package.json dependencies",
    ]);
  });

  it('rejects an undeclared workspace package in a GPU program', () => {
    const root = workspace({
      'packages/programs/suites/more.ts': "\n\nimport { front } from '@x/front';\n",
    });
    expect(check(root)).toEqual([
      "packages/programs/suites/more.ts:3: import '@x/front': @x/front is not declared in packages/programs/package.json dependencies or devDependencies",
    ]);
  });

  it('rejects a relative import into another package, a deep import, and production code reaching into tests', () => {
    const root = workspace({
      'packages/programs/suites/suite.ts': "import { fixture } from '../../back/test/back.test.js';\n",
      'packages/back/test/deep.test.ts': "import { node } from '@x/ir/src/node.js';\n",
      'packages/back/src/index.ts': "import { node } from '@x/ir';\nimport { helper } from '../test/back.test.js';\n",
    });
    expect(check(root)).toEqual([
      "packages/back/src/index.ts:2: import '../test/back.test.js': production code (src/) imports test/back.test.js, outside src/",
      "packages/back/test/deep.test.ts:1: import '@x/ir/src/node.js': reaches into @x/ir's files: import the package by its name (its src/index.ts exports the API)",
      "packages/programs/suites/suite.ts:1: import '../../back/test/back.test.js': relative import leaves packages/programs (reaches packages/back/test/back.test.js): import a declared package by name instead",
    ]);
  });

  it('rejects a private package in production code or in dependencies, and a package missing from the order', () => {
    const root = workspace({
      'packages/back/package.json': { name: '@x/back', dependencies: { '@x/ir': 'workspace:*', '@x/helpers': 'workspace:*', lodash: '1' } },
      'packages/back/src/index.ts': "import { helper } from '@x/helpers';\n",
      'packages/stray/package.json': { name: '@x/stray' },
    });
    expect(check(root)).toEqual([
      "packages/back/package.json:5: import '@x/helpers': @x/helpers is private: @x/back may declare it only in devDependencies",
      "packages/back/src/index.ts:1: import '@x/helpers': @x/helpers is private: production code (src/) may not import it",
      "packages/stray/package.json:2: import '@x/stray': @x/stray is not in the package order (tools/package-order.mjs)",
    ]);
  });
});
