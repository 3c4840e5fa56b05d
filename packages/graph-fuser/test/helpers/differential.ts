// Differential check of parseJitIR: random inputs (fresh each run) shaped by the graph's input
// types, the lowered Fusion run on fusion-ir's reference evaluator, the graph run on the test's
// own aten reference (aten-reference*.ts), outputs and in-place updates compared with a
// tolerance by dtype. Large fixtures are shrunk: every distinct size > 1 maps to a small one
// (fusion inputs have symbolic extents, so any consistent sizes are valid).
import type { Graph, TensorType, Value } from '@tsfuser/jit-ir';
import { HostTensor, evaluate, type DataType, type EvalValue } from '@tsfuser/fusion-ir';
import { lowerJitGraph } from '../../src/index.js';
import { refScalar, type RefValue } from './aten-reference.js';
import { runAtenReference } from './aten-reference-ops.js';
import { isRef, makeRef, numel, type RefTensor } from './ref-tensor.js';

const DTYPES: Record<string, DataType> = { Float: 'Float', Half: 'Half', BFloat16: 'BFloat16', Double: 'Double', Bool: 'Bool', Long: 'Int', Int: 'Int32' };

export interface DiffOptions {
  /** Values are drawn from [-range, range] (positive (0.25, range] for inputs named like variances). */
  range?: number;
  /** Absolute tolerance added to the per-dtype one (for sums that cancel). */
  atol?: number;
  /** Keep the sizes of the types even when large. */
  keepSizes?: boolean;
}

function typeOf(v: Value): TensorType | null {
  if (v.type.kind === 'Tensor' && v.type.scalarType !== null && v.type.sizes !== null) return v.type;
  for (const u of v.uses) {
    const a = u.user.attribute('profiled_type');
    if (u.user.kind === 'prim::profile' && a?.kind === 'ty' && a.value.kind === 'Tensor') return a.value;
  }
  return null;
}

function sizeMap(graph: Graph, keep: boolean): (s: number | null, d: number) => number {
  const types = graph.inputs.map(typeOf).filter((t): t is TensorType => t !== null);
  const total = types.reduce((acc, t) => acc + numel((t.sizes ?? []).map((s) => Number(s ?? 4))), 0);
  const distinct = [...new Set(types.flatMap((t) => (t.sizes ?? []).filter((s): s is number => s !== null && s > 1)))].sort((a, b) => a - b);
  const small = [3, 5, 6, 7, 4, 9, 10, 11, 12, 13];
  const shrink = !keep && total > 200_000;
  return (s, d) => {
    if (s === null) return 3 + d;
    if (!shrink || s <= 1) return s;
    return small[distinct.indexOf(s) % small.length] as number;
  };
}

function randomValue(dtype: DataType, range: number, positive: boolean): number {
  if (dtype === 'Bool') return Math.random() < 0.5 ? 1 : 0;
  if (dtype === 'Int' || dtype === 'Int32') return Math.floor(Math.random() * 9) - 4;
  const u = Math.random();
  return positive ? 0.25 + u * (range - 0.25) : (u * 2 - 1) * range;
}

/** A strided HostTensor holding `values` (row-major logical order) laid out in the type's stride order. */
function hostTensor(dtype: DataType, sizes: number[], values: readonly number[], typeStrides: readonly number[] | null): HostTensor {
  const rank = sizes.length;
  const order = typeStrides !== null && typeStrides.length === rank ? [...sizes.keys()].sort((a, b) => (typeStrides[b] as number) - (typeStrides[a] as number) || a - b) : [...sizes.keys()];
  const strides = new Array<number>(rank).fill(1);
  let acc = 1;
  for (let pos = rank - 1; pos >= 0; pos -= 1) {
    const d = order[pos] as number;
    strides[d] = acc;
    acc *= sizes[d] as number;
  }
  const dense = HostTensor.empty(dtype, [numel(sizes)]);
  const t = new HostTensor(dtype, sizes, strides, dense.data);
  const pos = new Array<number>(rank).fill(0);
  values.forEach((v) => {
    const k = pos.reduce((a, p, d) => a + p * (strides[d] as number), 0);
    const elem = dtype === 'Bool' ? v !== 0 : dtype === 'Int' ? BigInt(v) : v;
    dense.setFlat(k, elem);
    for (let d = rank - 1; d >= 0; d -= 1) {
      pos[d] = (pos[d] as number) + 1;
      if ((pos[d] as number) < (sizes[d] as number)) break;
      pos[d] = 0;
    }
  });
  return t;
}

/** The value a prim::profile_ivalue recorded for input `v`, when every use is one. */
function profiledInput(v: Value): RefValue | null {
  const users = v.uses.map((u) => u.user);
  if (users.length === 0 || users.some((n) => n.kind !== 'prim::profile_ivalue')) return null;
  const n = users[0];
  for (const name of n?.attributeNames() ?? []) {
    const a = n?.attribute(name);
    if (a?.kind === 'i') return refScalar(name.includes('bool') ? 'bool' : 'int', Number(a.value));
    if (a?.kind === 'is') return { kind: 'list', items: a.value.map((x) => refScalar('int', Number(x))) };
    if (a?.kind === 'f') return refScalar('float', a.value);
  }
  return null;
}

export interface GeneratedInputs {
  ref: RefValue[];
  /** One per graph input; null where the input has no fusion counterpart. */
  eval: (EvalValue | null)[];
}

export function generateInputs(graph: Graph, opts: DiffOptions = {}): GeneratedInputs {
  const size = sizeMap(graph, opts.keepSizes === true);
  const range = opts.range ?? 2;
  const ref: RefValue[] = [];
  const evalInputs: (EvalValue | null)[] = [];
  for (const v of graph.inputs) {
    const profiled = profiledInput(v);
    const t = typeOf(v);
    if (t !== null) {
      const dtype = DTYPES[t.scalarType ?? ''] ?? 'Float';
      const sizes = (t.sizes ?? []).map((s, d) => size(s === null ? null : Number(s), d));
      const positive = /var/.test(v.debugName());
      const r = makeRef(dtype, sizes, Array.from({ length: numel(sizes) }, () => randomValue(dtype, range, positive)));
      ref.push(r);
      evalInputs.push(hostTensor(dtype, sizes, [...r.data], t.strides?.map(Number) ?? null));
    } else if (v.type.kind === 'Int' || v.type.kind === 'Float' || v.type.kind === 'Bool') {
      const kind = v.type.kind === 'Int' ? 'int' : v.type.kind === 'Float' ? 'float' : 'bool';
      const given = profiled !== null && !isRef(profiled) && (profiled.kind === 'int' || profiled.kind === 'bool' || profiled.kind === 'float') ? profiled.value : null;
      const value = given ?? (kind === 'int' ? 1 + Math.floor(Math.random() * 3) : kind === 'float' ? randomValue('Double', range, false) : Math.random() < 0.5 ? 1 : 0);
      ref.push(refScalar(kind, value));
      evalInputs.push(kind === 'int' ? BigInt(value) : kind === 'bool' ? value !== 0 : value);
    } else {
      ref.push(profiled ?? { kind: 'other' });
      evalInputs.push(null);
    }
  }
  return { ref, eval: evalInputs };
}

function tolerance(dtype: DataType): { rtol: number; atol: number } {
  switch (dtype) {
    case 'Half':
      return { rtol: 1e-2, atol: 1e-2 };
    case 'BFloat16':
      return { rtol: 4e-2, atol: 4e-2 };
    case 'Float':
      return { rtol: 2e-5, atol: 2e-5 };
    case 'Double':
      return { rtol: 1e-10, atol: 1e-10 };
    default:
      return { rtol: 0, atol: 0 };
  }
}

/** Describes the first mismatch between a fusion result and the reference value, or returns null. */
export function compare(what: string, actual: EvalValue | undefined, expected: RefValue | undefined, extraAtol = 0): string | null {
  if (expected === undefined || !isRef(expected)) return `${what}: the reference has no tensor here`;
  if (!(actual instanceof HostTensor)) return `${what}: the fusion returned ${String(actual)}`;
  if (actual.dtype !== expected.dtype) return `${what}: dtype ${actual.dtype}, expected ${expected.dtype}`;
  if (actual.sizes.join(',') !== expected.shape.join(',')) return `${what}: sizes [${actual.sizes.join(', ')}], expected [${expected.shape.join(', ')}]`;
  const values = actual.toNumbers();
  const { rtol, atol } = tolerance(expected.dtype);
  for (let i = 0; i < values.length; i += 1) {
    const a = values[i] as number;
    const e = expected.data[i] as number;
    if (Number.isNaN(e) ? Number.isNaN(a) : !Number.isFinite(e) ? a === e : Math.abs(a - e) <= atol + extraAtol + rtol * Math.abs(e)) continue;
    return `${what}: element ${i} is ${a}, expected ${e} (${expected.dtype})`;
  }
  return null;
}

/** Lowers `graph`, runs both sides on fresh random inputs, and returns the mismatches (empty = pass). */
export function differentialCheck(graph: Graph, opts: DiffOptions = {}): string[] {
  const lowering = lowerJitGraph(graph);
  const inputs = generateInputs(graph, opts);
  const fusionInputs = inputs.eval.filter((v, i): v is EvalValue => v !== null && lowering.inputs[i] !== null);
  const results = evaluate(lowering.fusion, fusionInputs);
  const expected = runAtenReference(graph, inputs.ref);
  const problems: string[] = [];
  graph.outputs.forEach((v, i) => {
    const p = compare(`output ${i} (%${v.debugName()})`, results[i], expected.outputs[i], opts.atol);
    if (p !== null) problems.push(p);
  });
  for (const u of lowering.inputUpdates) {
    const p = compare(`update of input ${u.graphInput} (${u.what})`, results[u.fusionOutput], expected.updated.get(u.graphInput), opts.atol);
    if (p !== null) problems.push(p);
  }
  if (expected.updated.size !== lowering.inputUpdates.length) {
    problems.push(`the graph updates ${expected.updated.size} inputs in place, the lowering reports ${lowering.inputUpdates.length}`);
  }
  return problems;
}

export type { RefTensor };
