// UInt64 fusions for codegen tests (simulator, nvcc) and the GPU suite: wrapping arithmetic
// (a·b + c, a − b, −a), bitwise ops and shifts (uint64_bitwise), unsigned comparisons and where, sign, pow, casts
// to Float / Double / Int and from Double, and row sum (wrapping) / max / min reductions. Inputs
// from a seed: `full` spans all 64 bits (GPU suite: results wrap), otherwise values below 2^20
// so that every result stays below 2^53 (the kernel simulator computes in JS numbers).
import { add, bitwiseAnd, bitwiseRightShift, bitwiseXor, cast, Fusion, gt, HostTensor, makeTensor, max, min, mul, neg, pow, sub, sum, unaryOp, where, type TensorView } from '@tsfuser/fusion-ir';
import { seededRandom } from './random.js';

export interface UInt64Case {
  name: string;
  fusion: Fusion;
  scheduler: 'pointwise' | 'reduction';
  /** Number of UInt64 inputs ([rows, cols] each). */
  inputCount: number;
}

/** A fusion of `inputCount` UInt64 [rows, cols] inputs a, b, c and the outputs `body` makes of them. */
function build(inputCount: number, body: (a: TensorView, b: TensorView, c: TensorView) => TensorView[]): Fusion {
  const f = new Fusion();
  const xs = Array.from({ length: inputCount }, () => makeTensor(f, { shape: [-1, -1], dtype: 'UInt64' }));
  for (const x of xs) f.addInput(x);
  const [a, b, c] = [xs[0], xs[1] ?? xs[0], xs[2] ?? xs[0]] as TensorView[];
  for (const o of body(a as TensorView, b as TensorView, c as TensorView)) f.addOutput(o);
  return f;
}

export function uint64Cases(): UInt64Case[] {
  return [
    {
      name: 'uint64_arith',
      inputCount: 3,
      scheduler: 'pointwise',
      fusion: build(3, (a, b, c) => [add(mul(a, b), c), where(gt(a, b), a, b) as TensorView]),
    },
    {
      name: 'uint64_bitwise',
      inputCount: 2,
      scheduler: 'pointwise',
      fusion: build(2, (a, b) => [bitwiseXor(a, b), bitwiseAnd(a, b), bitwiseRightShift(a, 3)]),
    },
    {
      name: 'uint64_wrap',
      inputCount: 2,
      scheduler: 'pointwise',
      fusion: build(2, (a, b) => [sub(a, b), neg(a), add(a, -1), pow(b, 3), unaryOp('sign', a)]),
    },
    {
      name: 'uint64_casts',
      inputCount: 1,
      scheduler: 'pointwise',
      fusion: build(1, (a) => [cast(a, 'Float'), cast(a, 'Double'), cast(a, 'Int'), cast(cast(a, 'Double'), 'UInt64')]),
    },
    { name: 'uint64_row_sum', inputCount: 1, scheduler: 'reduction', fusion: build(1, (a) => [sum(a, [1])]) },
    { name: 'uint64_row_max', inputCount: 1, scheduler: 'reduction', fusion: build(1, (a) => [max(a, [1])]) },
    { name: 'uint64_row_min', inputCount: 1, scheduler: 'reduction', fusion: build(1, (a) => [min(a, [1])]) },
  ];
}

/** A [rows, cols] UInt64 tensor from `seed`: all 64 bits random when `full`, else below 2^20. */
export function uint64Input(seed: number, rows: number, cols: number, full: boolean): HostTensor {
  const rand = seededRandom(seed);
  const word = (): bigint => BigInt(Math.floor(rand() * 2 ** 32));
  const data = BigUint64Array.from({ length: rows * cols }, () => (full ? (word() << 32n) | word() : BigInt(Math.floor(rand() * 2 ** 20))));
  return new HostTensor('UInt64', [rows, cols], [cols, 1], data);
}
