// Random pointwise/broadcast fusions for the GPU differential suite: a few inputs of one rank
// (some dims broadcast, some inputs of lower rank broadcast with `broadcast`, some declared
// non-contiguous), a chain of unary/binary/where/cast ops mixing dtypes, one or two outputs;
// plus the concrete input layout to run it with (sizes 0, 1, odd and large-ish, permuted or
// padded strides for non-contiguous inputs, misaligned pointers).

import {
  Fusion,
  binaryOp,
  broadcast,
  cast,
  makeTensor,
  mul,
  unaryOp,
  where,
  type DataType,
  type TensorView,
  type UnaryOpType,
  type BinaryOpType,
} from '@tsfuser/fusion-ir';
import type { Random } from '../src/io/random.js';

export interface InputLayout {
  sizes: number[];
  strides: number[];
  misalign: boolean;
}

export interface RandomCase {
  name: string;
  fusion: Fusion;
  layouts: InputLayout[];
  /** Inputs that must be positive (divisors, pow bases). */
  positive: boolean[];
}

const DTYPES: readonly DataType[] = ['Float', 'Float', 'Half', 'BFloat16', 'Double', 'Int32', 'Int', 'Bool'];
const SIZES: readonly number[] = [1, 2, 3, 5, 7, 8, 16, 17, 31, 64, 127, 130, 255, 513, 1024, 1031];
const FLOAT_UNARY: readonly UnaryOpType[] = ['neg', 'abs', 'exp', 'sin', 'cos', 'tanh', 'sigmoid', 'relu', 'silu', 'gelu', 'gelu_tanh', 'erf', 'floor', 'ceil', 'trunc', 'sign', 'expm1', 'atan'];
const INT_UNARY: readonly UnaryOpType[] = ['neg', 'abs', 'sign', 'bitwise_not'];
const FLOAT_BINARY: readonly BinaryOpType[] = ['add', 'sub', 'mul', 'maximum', 'minimum', 'atan2'];
const INT_BINARY: readonly BinaryOpType[] = ['add', 'sub', 'mul', 'maximum', 'minimum', 'bitwise_and', 'bitwise_xor'];
const COMPARE: readonly BinaryOpType[] = ['lt', 'le', 'gt', 'ge', 'eq', 'ne'];

function pick<T>(rng: Random, items: readonly T[]): T {
  return items[rng.int(0, items.length)] as T;
}

function isFloat(d: DataType): boolean {
  return d === 'Float' || d === 'Half' || d === 'BFloat16' || d === 'Double';
}

function denseStrides(sizes: readonly number[], order: readonly number[], pad: number): number[] {
  const strides = new Array<number>(sizes.length).fill(0);
  let acc = 1;
  for (let k = order.length - 1; k >= 0; k -= 1) {
    const d = order[k] as number;
    strides[d] = acc;
    acc *= Math.max(1, sizes[d] as number) + (k === order.length - 1 ? pad : 0);
  }
  return strides;
}

/** One random case; `index` only names it. Total elements stay under ~2^19 for the CPU oracle. */
export function randomPointwiseCase(rng: Random, index: number): RandomCase {
  const rank = rng.int(1, 5);
  let sizes: number[] = [];
  do {
    sizes = Array.from({ length: rank }, () => pick(rng, SIZES));
  } while (sizes.reduce((a, b) => a * b, 1) > 1 << 19);
  if (rng.uniform() < 0.06) sizes[rng.int(0, rank)] = 0;
  const fusion = new Fusion();
  const dtype = pick(rng, DTYPES);
  const inputCount = rng.int(1, 4);
  const layouts: InputLayout[] = [];
  const positive: boolean[] = [];
  const values: TensorView[] = [];
  for (let i = 0; i < inputCount; i += 1) {
    const inDtype = rng.uniform() < 0.8 ? dtype : pick(rng, DTYPES);
    const lowerRank = rank > 1 && rng.uniform() < 0.25;
    const kept = sizes.map((_, d) => !lowerRank || d === rank - 1 || rng.uniform() < 0.5);
    const bcast = sizes.map((s, d) => kept[d] === true && s !== 0 && rng.uniform() < 0.2);
    const dims = sizes.map((s, d) => ({ d, size: bcast[d] === true ? 1 : s })).filter((e) => kept[e.d] === true);
    const nonContig = rng.uniform() < 0.25 && dims.length > 0;
    const order = dims.map((_, k) => k);
    if (nonContig && dims.length > 1 && rng.uniform() < 0.5) order.reverse();
    const pad = nonContig ? rng.int(1, 4) : 0;
    const inSizes = dims.map((e) => e.size);
    const t = makeTensor(fusion, {
      shape: dims.map((e) => (bcast[e.d] === true ? 1 : -1)),
      dtype: inDtype,
      ...(nonContig ? { contiguity: dims.map((e) => (bcast[e.d] === true ? null : false)) } : {}),
    });
    fusion.addInput(t);
    layouts.push({ sizes: inSizes, strides: denseStrides(inSizes, order, pad), misalign: rng.uniform() < 0.2 });
    positive.push(rng.uniform() < 0.5);
    values.push(lowerRank ? broadcast(t, kept.map((k) => !k)) : t);
  }
  const steps = rng.int(1, 7);
  for (let s = 0; s < steps; s += 1) {
    const a = pick(rng, values);
    const b = pick(rng, values);
    const r = rng.uniform();
    let out: TensorView;
    if (r < 0.3) {
      out = unaryOp(pick(rng, isFloat(a.dtype) ? FLOAT_UNARY : a.dtype === 'Bool' ? (['logical_not'] as const) : INT_UNARY), a);
    } else if (r < 0.7) {
      if (a.dtype === 'Bool' && b.dtype === 'Bool') out = binaryOp(pick(rng, ['logical_and', 'logical_or', 'logical_xor'] as const), a, b);
      else if (isFloat(a.dtype) || isFloat(b.dtype)) out = binaryOp(pick(rng, FLOAT_BINARY), a, b);
      else out = binaryOp(pick(rng, INT_BINARY), a.dtype === 'Bool' ? cast(a, 'Int32') : a, b.dtype === 'Bool' ? cast(b, 'Int32') : b);
    } else if (r < 0.8) {
      // Conditions compare fusion inputs only: comparing computed values that are nearly equal
      // (gelu(x) >= x for large x) flips on 1-ulp differences between CUDA's math and the
      // evaluator's, which says nothing about the compiler.
      const ca = values[rng.int(0, inputCount)] as TensorView;
      const cb = values[rng.int(0, inputCount)] as TensorView;
      out = where(binaryOp(pick(rng, COMPARE), ca, cb), a, rng.uniform() < 0.5 ? b : 2) as TensorView;
    } else if (r < 0.9) {
      out = cast(a, pick(rng, DTYPES));
    } else {
      out = mul(a, isFloat(a.dtype) ? 0.5 + rng.uniform() : 3);
    }
    values.push(out);
  }
  const last = values[values.length - 1] as TensorView;
  fusion.addOutput(last);
  const extra = values[rng.int(inputCount, values.length)] as TensorView;
  if (extra !== last && rng.uniform() < 0.4 && !fusion.inputs.includes(extra)) fusion.addOutput(extra);
  return { name: `random_${index}_${dtype}_r${rank}`, fusion, layouts, positive };
}
