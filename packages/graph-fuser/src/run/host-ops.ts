// Nodes runGraph computes itself instead of through parseJitIR: constants, lists and tuples,
// profiling pass-throughs, shape expressions (`aten::size`, `prim::BroadcastSizes`,
// `prim::ReductionSizes`), scalar arithmetic and comparisons (guards of profiled values,
// `aten::all`) and `prim::Print`. Matrix products and attention, which the fuser leaves outside
// groups, run through the reference lowering (node-reference.ts) like every other aten op, so
// their shapes are checked with PyTorch's messages.
// Operands are checked as PyTorch checks them (torch-checks.ts): aten::size(x, 9) of a 2-D x,
// an index past a list's end, an int floordiv by 0 or aten::Int of nan raise PyTorch's error.
// Returns null for a node it does not handle (then the reference lowering runs it).

import { HostTensor } from '@tsfuser/fusion-ir';
import { SCALAR_TYPE_CODES, constantValue, type Node } from '@tsfuser/jit-ir';
import { describeRunValue, isList, isTensor, runValueOfConstant, scalarTypeOfDataType, type RunValue } from './run-values.js';
import { floatToInt, floordivInt, listIndex, tensorItemToInt, wrapDim } from './torch-checks.js';

export interface HostContext {
  print(text: string): void;
}

type HostOp = (n: Node, args: readonly RunValue[], ctx: HostContext) => RunValue[];

function list(v: RunValue | undefined, what: string): readonly RunValue[] {
  if (v === undefined || !isList(v)) throw new Error(`runGraph: ${what} expects a list, got ${v === undefined ? 'nothing' : describeRunValue(v)}`);
  return v;
}

function ints(v: RunValue | undefined, what: string): number[] {
  return list(v, what).map((x) => Number(x));
}

function tensor(v: RunValue | undefined, what: string): HostTensor {
  if (v === undefined || !isTensor(v)) throw new Error(`runGraph: ${what} expects a tensor`);
  return v;
}

function num(v: RunValue | undefined): number {
  if (typeof v === 'number') return v;
  // A 0-dim tensor (prim::NumToTensor's result, a traced Python scalar) holds one number.
  if (v !== undefined && isTensor(v) && v.rank === 0) return Number(v.get(0));
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  throw new Error(`runGraph: expected a number, got ${v === undefined ? 'nothing' : describeRunValue(v ?? null)}`);
}

/** numpy broadcasting of shapes. */
export function broadcastShapes(shapes: readonly (readonly number[])[]): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes) {
    s.forEach((size, i) => {
      const d = rank - s.length + i;
      const cur = out[d] as number;
      if (cur === 1) out[d] = size;
      else if (size !== 1 && size !== cur) throw new Error(`runGraph: shapes [${shapes.map((x) => x.join(', ')).join('] and [')}] do not broadcast`);
    });
  }
  return out;
}

function reductionSizes(shape: number[], dims: number[], keepdim: boolean): number[] {
  const rank = shape.length;
  const reduced = new Set((dims.length === 0 ? shape.map((_, i) => i) : dims).map((d) => (d < 0 ? d + rank : d)));
  return keepdim ? shape.map((s, i) => (reduced.has(i) ? 1 : s)) : shape.filter((_, i) => !reduced.has(i));
}

function equal(a: RunValue, b: RunValue): boolean {
  if (isList(a) && isList(b)) return a.length === b.length && a.every((x, i) => equal(x, b[i] as RunValue));
  if (isList(a) || isList(b)) return false;
  if (a === null || b === null) return a === b;
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return num(a) === num(b);
}

const SCALAR_COMPARE: Record<string, (a: number, b: number) => boolean> = {
  'aten::lt': (a, b) => a < b,
  'aten::le': (a, b) => a <= b,
  'aten::gt': (a, b) => a > b,
  'aten::ge': (a, b) => a >= b,
};

const SCALAR_ARITH: Record<string, (a: number, b: number) => number> = {
  'aten::add': (a, b) => a + b,
  'aten::sub': (a, b) => a - b,
  'aten::mul': (a, b) => a * b,
};

/** Whether TorchScript types the node's input `i` as an int (Int, or an int constant). */
function intTyped(n: Node, i: number): boolean {
  const t = n.inputs[i]?.type;
  return t?.kind === 'Int' || t?.kind === 'Bool';
}

/** aten::floordiv of scalars: the int overload refuses 0 (as Python), the float one is floor(a / b). */
function floordiv(n: Node, a: number, b: number): number {
  if (intTyped(n, 0) && intTyped(n, 1)) return floordivInt(n.kind, a, b);
  return Math.floor(a / b);
}

const HOST_OPS: Readonly<Record<string, HostOp>> = {
  'prim::Constant': (n) => [runValueOfConstant(constantValue(n) ?? { kind: 'none' })],
  'prim::ListConstruct': (_n, args) => [[...args]],
  'prim::TupleConstruct': (_n, args) => [[...args]],
  'prim::ListUnpack': (n, args) => [...list(args[0], n.kind)],
  'prim::TupleUnpack': (n, args) => [...list(args[0], n.kind)],
  'prim::profile': (_n, args) => [...args],
  'prim::profile_ivalue': (_n, args) => [args[0] ?? null],
  'prim::BroadcastSizes': (n, args) => [broadcastShapes(args.map((a) => ints(a, n.kind)))],
  'prim::ReductionSizes': (n, args) => [reductionSizes(ints(args[0], n.kind), ints(args[1], n.kind), Boolean(args[2]))],
  'aten::size': (n, args) => {
    const t = tensor(args[0], n.kind);
    if (args.length === 1) return [[...t.sizes]];
    return [t.sizes[wrapDim(n.kind, num(args[1]), t.rank)] as number];
  },
  'prim::dtype': (n, args) => [SCALAR_TYPE_CODES[scalarTypeOfDataType(tensor(args[0], n.kind).dtype)]],
  'aten::all': (n, args) => [list(args[0], n.kind).every((x) => x === true || num(x) !== 0)],
  'aten::eq': (_n, args) => [equal(args[0] ?? null, args[1] ?? null)],
  'aten::ne': (_n, args) => [!equal(args[0] ?? null, args[1] ?? null)],
  'aten::__not__': (_n, args) => [!args[0]],
  'aten::__xor__': (_n, args) => [Boolean(args[0]) !== Boolean(args[1])],
  'aten::Int': (n, args) => [isTensor(args[0] ?? null) ? tensorItemToInt(n.kind, num(args[0])) : floatToInt(n.kind, num(args[0]))],
  'prim::NumToTensor': (n, args) => {
    const v = args[0];
    if (typeof v === 'boolean') return [HostTensor.fromValues('Bool', [], [v])];
    const x = num(v);
    // The input's TorchScript type says Long() or Double(); a float-typed 2.0 stays Double.
    if (n.input(0).type.kind === 'Float') return [HostTensor.fromValues('Double', [], [x])];
    return [HostTensor.fromValues('Int', [], [BigInt(Math.trunc(x))])];
  },
  'aten::__getitem__': (n, args) => {
    const items = list(args[0], n.kind);
    return [items[listIndex(n.kind, num(args[1]), items.length)] as RunValue];
  },
  'aten::len': (n, args) => [list(args[0], n.kind).length],
  'aten::Float': (_n, args) => [num(args[0])],
  'prim::Print': (_n, args, ctx) => {
    ctx.print(args.map((a) => (typeof a === 'string' ? a : describeRunValue(a))).join(' '));
    return [];
  },
};

/** The host result of `n`, or null when the reference lowering must compute it. */
export function evalHostOp(n: Node, args: readonly RunValue[], ctx: HostContext): RunValue[] | null {
  const anyTensor = args.some(isTensor);
  const compare = SCALAR_COMPARE[n.kind];
  if (compare !== undefined && !anyTensor) return [compare(num(args[0]), num(args[1]))];
  if (n.kind === 'aten::floordiv' && !anyTensor) return [floordiv(n, num(args[0]), num(args[1]))];
  const arith = SCALAR_ARITH[n.kind];
  if (arith !== undefined && !anyTensor) return [arith(num(args[0]), num(args[1]))];
  // On tensors these are pointwise ops (the reference lowering), not host comparisons.
  if ((n.kind === 'aten::eq' || n.kind === 'aten::ne' || n.kind === 'aten::__xor__') && anyTensor) return null;
  const op = HOST_OPS[n.kind];
  return op === undefined ? null : op(n, args, ctx);
}
