// The op table: every TorchScript op parseJitIR can lower, in one place. jitOpSupport answers
// "can this node be lowered?" from it without building anything (schema match, constant
// arguments, the entry's own checks), and the graph driver lowers nodes through the same entries,
// so the fuser never puts a node into a fusion group that parseJitIR would then reject.

import { getSchema, type FunctionSchema, type Node } from '@tsfuser/jit-ir';
import { ACTIVATION_OPS } from './activations.js';
import { StaticArgs } from './args.js';
import { NORMALIZATION_OPS } from './normalization.js';
import { NORMALIZATION_BACKWARD_OPS } from './normalization-backward.js';
import type { JitOpEntry } from './op-entry.js';
import { POINTWISE_OPS } from './pointwise.js';
import { PRIM_OPS, type PrimEntry } from './prims.js';
import { REDUCTION_OPS } from './reductions.js';
import { SCAN_OPS } from './scans.js';
import { SHAPE_OPS } from './shapes.js';
import { SUM_TO_SIZE_OPS } from './sum-to-size.js';
import { FACTORY_OPS } from './factories.js';
import { RANDOM_OPS } from './random.js';
import { INDEXING_OPS } from './indexing.js';
import { COMPLEX_OPS } from './complex.js';
import { MATMUL_OPS } from './matmul.js';
import { describeJitVal, staticValue } from './values.js';

export const ATEN_OPS: Readonly<Record<string, JitOpEntry>> = {
  ...POINTWISE_OPS,
  ...ACTIVATION_OPS,
  ...REDUCTION_OPS,
  ...NORMALIZATION_OPS,
  ...NORMALIZATION_BACKWARD_OPS,
  ...SHAPE_OPS,
  ...SUM_TO_SIZE_OPS,
  ...FACTORY_OPS,
  ...RANDOM_OPS,
  ...INDEXING_OPS,
  ...SCAN_OPS,
  ...COMPLEX_OPS,
  ...MATMUL_OPS,
};

export { PRIM_OPS };

/** Why common ops that look fusible are not (a clearer message than "not supported"). */
const KNOWN_UNSUPPORTED: Readonly<Record<string, string>> = {
  'prim::If': 'control flow (blocks) cannot be lowered into one fusion',
  'prim::Loop': 'control flow (blocks) cannot be lowered into one fusion',
  'prim::TupleConstruct': 'tuples are not fusion values',
  'prim::Print': 'printing is a side effect',
};

export type JitOpSupport = { supported: true } | { supported: false; reason: string };

export interface AtenMatch {
  entry: JitOpEntry;
  schema: FunctionSchema;
}

/** The entry and the first of its schemas that `node` matches, or null. */
export function matchAtenOp(node: Node): AtenMatch | null {
  const entry = ATEN_OPS[node.kind];
  if (entry === undefined) return null;
  for (const text of entry.schemas) {
    const schema = getSchema(text);
    if (node.matches(schema)) return { entry, schema };
  }
  return null;
}

export function primEntry(node: Node): PrimEntry | undefined {
  return PRIM_OPS[node.kind];
}

function isInPlace(kind: string): boolean {
  const name = kind.slice(kind.indexOf('::') + 2);
  return name.endsWith('_') && !name.startsWith('_');
}

function inputTypes(node: Node): string {
  return node.inputs.map((v) => v.type.kind).join(', ');
}

/** The reason a node cannot be lowered, or null when it can. */
export function unsupportedReason(node: Node): string | null {
  if (node.blocks.length > 0) return 'nodes with blocks (control flow) cannot be lowered into one fusion';
  const known = KNOWN_UNSUPPORTED[node.kind];
  if (known !== undefined) return known;
  const prim = primEntry(node);
  if (prim !== undefined) return prim.check(node);
  if (isInPlace(node.kind)) return 'in-place ops mutate their input and are not fused';
  const entry = ATEN_OPS[node.kind];
  if (entry === undefined) return 'op is not supported by parseJitIR';
  const match = matchAtenOp(node);
  if (match === null) {
    return `no supported overload matches the inputs (${inputTypes(node)}); supported: ${entry.schemas.join(' | ')}`;
  }
  const args = new StaticArgs(node, match.schema);
  for (const name of entry.constants ?? []) {
    if (!args.has(name)) continue;
    const v = args.get(name);
    if (v === null) {
      const input = node.inputs[match.schema.arguments.findIndex((a) => a.name === name)];
      return `argument '${name}' (${input === undefined ? '?' : `%${input.debugName()}`}) must be a compile-time constant`;
    }
    if (v.kind === 'unavailable') return `argument '${name}' is ${describeJitVal(v)}`;
  }
  return entry.check?.(args) ?? null;
}

/** Whether parseJitIR can lower `node` (the fuser's fusibility test for single nodes). */
export function jitOpSupport(node: Node): JitOpSupport {
  const reason = unsupportedReason(node);
  return reason === null ? { supported: true } : { supported: false, reason };
}

/** Every op kind parseJitIR lowers (for documentation and tests). */
export function supportedJitOps(): string[] {
  return [...Object.keys(ATEN_OPS), ...Object.keys(PRIM_OPS)].sort();
}

export { staticValue };
