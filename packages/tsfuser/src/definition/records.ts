// The record list of a FusionDefinition, as nvFuser's FusionCache keeps it: one record per
// definition call (op name, argument references and literal values, output state indices).
// Two definitions are the same fusion exactly when their record lists serialize to the same
// canonical string; the hash of that string keys the FusionCache.
//
// Invariant: records hold only plain data (no Vals, no handles), with every optional argument
// filled in by its default, so equal definitions written differently hash the same.

import { createHash } from 'node:crypto';

/** A reference to an earlier state (a defined tensor, scalar or vector) by its index. */
export interface StateRef {
  readonly ref: number;
}

export type RecordValue = StateRef | number | boolean | string | null | readonly RecordValue[];

export type StateKind = 'tensor' | 'scalar' | 'vector';

export interface StateInfo {
  readonly kind: StateKind;
  /** Tensors: rank; vectors: length; scalars: 0. */
  readonly size: number;
}

export interface FusionRecord {
  /** `defineTensor`, `defineScalar`, `defineVector`, `addOutput` or an op name of `fd.ops`. */
  readonly op: string;
  readonly args: readonly RecordValue[];
  /** State indices this record defines, in order. */
  readonly outputs: readonly number[];
}

export function isStateRef(v: RecordValue): v is StateRef {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'ref' in v;
}

/** One canonical line per record; numbers keep -0, NaN and ±Infinity distinct. */
export function canonicalRecords(records: readonly FusionRecord[]): string {
  return records.map((r) => `${r.op}(${r.args.map(canonicalValue).join(',')})->${r.outputs.join(',')}`).join('\n');
}

function canonicalValue(v: RecordValue): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${(v as readonly RecordValue[]).map(canonicalValue).join(',')}]`;
  return `%${(v as StateRef).ref}`;
}

/** sha256 of the canonical record list (hex). */
export function hashRecords(records: readonly FusionRecord[]): string {
  return createHash('sha256').update(canonicalRecords(records)).digest('hex');
}
