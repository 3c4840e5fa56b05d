#!/usr/bin/env node
// Import-order check: every import in every workspace package is relative within the package, a
// node builtin, the package itself, or a package it declares — and workspace packages only in
// the order of tools/package-order.mjs.
//
//   node tools/check-imports.mjs [root]      # (pnpm check:imports) exits 1 naming each violation
//
// Rules, for each source file under packages/<dir>/ (package-root config files such as
// vitest.config.ts and tsup.config.ts are tooling and not checked):
// - a relative import stays inside the package, and production files (src/) import only src/;
// - `node:x` and node's builtin modules are always allowed;
// - a bare import names the package itself, or a package in its package.json: production files
//   only `dependencies` (and `peerDependencies`), other files (test/, gpu/, scripts/, …) also
//   `devDependencies` and the repository root's devDependencies (vitest, fast-check, …);
// - a workspace package is imported by its name only (no deep path into its files), and only if
//   the package order allows it: a public package only from the stages it builds on, a private
//   one (test helpers, GPU programs) only from non-production files;
// - each workspace package declared in a package.json is allowed by the order.
// Imports are found by TypeScript's preProcessFile (static, dynamic, `export … from`, require,
// `import('x')` types), so comments and strings never count.

import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { PACKAGE_ORDER, allowedImports, validatePackageOrder } from './package-order.mjs';

const SOURCE_FILE = /\.(?:[cm]?ts|tsx|[cm]?js)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'build', '.vitest', 'coverage', '.cache']);
const PRODUCTION_DIR = 'src';

/**
 * @typedef {{ file: string, line: number, specifier: string, reason: string }} Violation
 * @typedef {{ dir: string, json: Record<string, unknown>, name: string }} WorkspacePackage
 */

/**
 * The imports of one source text, with 1-based line numbers.
 * @param {string} text
 * @returns {{ specifier: string, line: number }[]}
 */
export function findImports(text) {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map((ref) => ({ specifier: ref.fileName, line: lineOf(text, ref.pos) }));
}

function lineOf(text, position) {
  let line = 1;
  for (let i = 0; i < position && i < text.length; i += 1) if (text.charCodeAt(i) === 10) line += 1;
  return line;
}

/** `@scope/name/deep/path` → `@scope/name`; `name/deep` → `name`. */
export function packageNameOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

function isBuiltin(specifier) {
  if (specifier.startsWith('node:')) return true;
  return builtinModules.includes(packageNameOf(specifier));
}

function dependencyNames(json, field) {
  const value = json[field];
  return value !== null && typeof value === 'object' ? Object.keys(value) : [];
}

/** @returns {WorkspacePackage[]} */
function workspacePackages(root) {
  const packagesDir = join(root, 'packages');
  const packages = [];
  for (const dir of readdirSync(packagesDir).sort()) {
    const file = join(packagesDir, dir, 'package.json');
    if (!existsSync(file)) continue;
    const json = JSON.parse(readFileSync(file, 'utf8'));
    packages.push({ dir: join(packagesDir, dir), json, name: String(json.name) });
  }
  return packages;
}

/** Source files below `dir`, skipping build outputs and package-root files. */
function sourceFiles(dir, isPackageRoot = true) {
  const files = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (!SKIPPED_DIRS.has(entry) && !entry.startsWith('.')) files.push(...sourceFiles(path, false));
    } else if (!isPackageRoot && SOURCE_FILE.test(entry) && !entry.endsWith('.d.ts')) {
      files.push(path);
    }
  }
  return files;
}

function declarationLine(text, name) {
  const index = text.indexOf(`"${name}"`);
  return index < 0 ? 1 : lineOf(text, index);
}

/**
 * Every violation in the workspace at `root` (a directory holding packages/*\/package.json and a
 * package.json), using `order` (default: tools/package-order.mjs).
 * @returns {Violation[]}
 */
export function checkWorkspace(root, order = PACKAGE_ORDER) {
  /** @type {Violation[]} */
  const violations = [];
  for (const problem of validatePackageOrder(order)) {
    violations.push({ file: 'tools/package-order.mjs', line: 1, specifier: '', reason: problem });
  }
  const rootJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const rootDevDependencies = new Set(dependencyNames(rootJson, 'devDependencies'));
  const packages = workspacePackages(root);
  const workspaceNames = new Set(packages.map((p) => p.name));

  for (const pkg of packages) {
    const allowed = allowedImports(order, pkg.name);
    const packageJsonPath = relative(root, join(pkg.dir, 'package.json'));
    if (allowed === undefined) {
      violations.push({ file: packageJsonPath, line: declarationLine(readFileSync(join(pkg.dir, 'package.json'), 'utf8'), 'name'), specifier: pkg.name, reason: `${pkg.name} is not in the package order (tools/package-order.mjs)` });
      continue;
    }
    violations.push(...checkDeclarations(pkg, allowed, workspaceNames, packageJsonPath));
    const production = new Set([...dependencyNames(pkg.json, 'dependencies'), ...dependencyNames(pkg.json, 'peerDependencies')]);
    const development = new Set([...production, ...dependencyNames(pkg.json, 'devDependencies'), ...rootDevDependencies]);
    for (const file of sourceFiles(pkg.dir)) {
      const inProduction = relative(pkg.dir, file).split(sep)[0] === PRODUCTION_DIR;
      const context = { root, pkg, file, inProduction, allowed, workspaceNames, declared: inProduction ? production : development };
      for (const { specifier, line } of findImports(readFileSync(file, 'utf8'))) {
        const reason = importProblem(specifier, context);
        if (reason !== undefined) violations.push({ file: relative(root, file), line, specifier, reason });
      }
    }
  }
  return violations;
}

function checkDeclarations(pkg, allowed, workspaceNames, packageJsonPath) {
  const text = readFileSync(join(pkg.dir, 'package.json'), 'utf8');
  const violations = [];
  for (const field of ['dependencies', 'peerDependencies', 'devDependencies']) {
    for (const name of dependencyNames(pkg.json, field)) {
      if (!workspaceNames.has(name)) continue;
      const role = allowed.get(name);
      const line = declarationLine(text, name);
      if (role === undefined) {
        violations.push({ file: packageJsonPath, line, specifier: name, reason: `${pkg.name} declares ${name} in ${field}, against the package order${usesText(pkg.name, allowed)}` });
      } else if (role === 'development' && field !== 'devDependencies') {
        violations.push({ file: packageJsonPath, line, specifier: name, reason: `${name} is private: ${pkg.name} may declare it only in devDependencies` });
      }
    }
  }
  return violations;
}

function usesText(name, allowed) {
  const names = [...allowed.keys()];
  return names.length === 0 ? ` (${name} may import no workspace package)` : ` (${name} may import ${names.join(', ')})`;
}

/** Why `specifier` may not be imported from `context.file`, or undefined when it may. */
function importProblem(specifier, context) {
  const { pkg, file, inProduction } = context;
  if (specifier.startsWith('.') || specifier.startsWith('/')) {
    const target = resolve(dirname(file), specifier);
    const inside = relative(pkg.dir, target);
    if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
      return `relative import leaves ${relative(context.root, pkg.dir)} (reaches ${relative(context.root, target)}): import a declared package by name instead`;
    }
    if (inProduction && inside.split(sep)[0] !== PRODUCTION_DIR) {
      return `production code (${PRODUCTION_DIR}/) imports ${inside}, outside ${PRODUCTION_DIR}/`;
    }
    return undefined;
  }
  if (isBuiltin(specifier)) return undefined;
  const name = packageNameOf(specifier);
  if (context.workspaceNames.has(name) && name !== specifier) {
    return `reaches into ${name}'s files: import the package by its name (its src/index.ts exports the API)`;
  }
  if (name === pkg.name) return undefined;
  if (context.workspaceNames.has(name)) {
    const role = context.allowed.get(name);
    if (role === undefined) return `${pkg.name} may not import ${name}: against the package order${usesText(pkg.name, context.allowed)}`;
    if (role === 'development' && inProduction) return `${name} is private: production code (${PRODUCTION_DIR}/) may not import it`;
  }
  if (!context.declared.has(name)) {
    const fields = inProduction ? 'dependencies' : 'dependencies or devDependencies';
    return `${name} is not declared in ${relative(context.root, join(pkg.dir, 'package.json'))} ${fields}`;
  }
  return undefined;
}

/** `file:line: import 'x' — reason` lines, one per violation. */
export function formatViolations(violations) {
  return violations.map((v) => `${v.file}:${v.line}: ${v.specifier === '' ? '' : `import '${v.specifier}': `}${v.reason}`);
}

function main() {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const violations = checkWorkspace(root);
  for (const line of formatViolations(violations)) console.error(line);
  if (violations.length > 0) {
    console.error(`check-imports: ${violations.length} violation${violations.length === 1 ? '' : 's'} (package order: tools/package-order.mjs)`);
    process.exit(1);
  }
  console.log('check-imports: every import is declared and follows the package order');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
