// The complete `fd.ops` table (every fusion-ir op exposed with nvFuser's names) and the
// TypeScript type of the `fd.ops` facade derived from it. Lookups by python name serve the
// importer; lookups by camelCase name serve records and printers.

import type { OpSpec, TypedOpSpec } from './op-spec.js';
import { binaryOps, otherPointwiseOps, unaryOps } from './ops-pointwise.js';
import { indexingOps } from './ops-indexing.js';
import { matmulOps } from './ops-matmul.js';
import { randomOps } from './ops-random.js';
import { scanSortOps } from './ops-scan-sort.js';
import { structuralOps } from './ops-structural.js';

export const OPS = { ...unaryOps, ...binaryOps, ...otherPointwiseOps, ...structuralOps, ...randomOps, ...indexingOps, ...scanSortOps, ...matmulOps };

export type OpName = keyof typeof OPS;

/** The `fd.ops` object: one method per op, typed from the table. */
export type Ops = { readonly [K in OpName]: (typeof OPS)[K] extends TypedOpSpec<infer F> ? F : never };

const byName = new Map<string, OpSpec>(Object.values(OPS).map((s: OpSpec) => [s.name, s]));
const byPython = new Map<string, OpSpec>(Object.values(OPS).map((s: OpSpec) => [s.python, s]));

export function opByName(name: string): OpSpec | undefined {
  return byName.get(name);
}

export function opByPythonName(name: string): OpSpec | undefined {
  return byPython.get(name);
}

/** Every op, sorted by name (for docs and `tsfuser --help`). */
export function allOps(): OpSpec[] {
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}
