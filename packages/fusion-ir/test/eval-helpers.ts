// Shared helpers for evaluator tests: random inputs with special values, fresh each run.
import { Fusion, HostTensor, evaluate, makeTensor, type DataType, type EvalValue, type TensorView } from '../src/index.js';

const SPECIALS = [NaN, Infinity, -Infinity, -0, 0, 1, -1, 0.5, -2.5];

export function randomFloats(n: number, specials = true): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i += 1) {
    if (specials && Math.random() < 0.15) out.push(SPECIALS[Math.floor(Math.random() * SPECIALS.length)] as number);
    else out.push((Math.random() - 0.5) * 8);
  }
  return out;
}

export function randomTensor(dtype: DataType, sizes: number[], specials = true): HostTensor {
  const n = sizes.reduce((a, b) => a * b, 1);
  if (dtype === 'Int' || dtype === 'Int32') {
    const edge = dtype === 'Int32' ? [-2147483648, 2147483647, 0, -1, 1, 7, -7] : [0, -1, 1, 7, -7, 1000003];
    const vals = Array.from({ length: n }, () =>
      specials && Math.random() < 0.2 ? (edge[Math.floor(Math.random() * edge.length)] as number) : Math.floor((Math.random() - 0.5) * 200),
    );
    return HostTensor.fromValues(dtype, sizes, vals.map((v) => (dtype === 'Int' ? BigInt(v) : v)));
  }
  if (dtype === 'Bool') return HostTensor.fromValues(dtype, sizes, Array.from({ length: n }, () => Math.random() < 0.5));
  return HostTensor.fromValues(dtype, sizes, randomFloats(n, specials));
}

/** Close within a dtype tolerance; NaN equals NaN; infinities must match exactly. */
export function close(actual: number, expected: number, dtype: DataType): boolean {
  if (Number.isNaN(expected)) return Number.isNaN(actual);
  if (!Number.isFinite(expected)) return actual === expected;
  const tol = dtype === 'Half' ? 1e-3 : dtype === 'BFloat16' ? 8e-3 : dtype === 'Float' ? 1e-6 : 1e-12;
  return Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected));
}

/** Builds a fusion with `build` (which adds inputs and outputs) and evaluates it. */
export function runFusion(
  build: (fusion: Fusion) => void,
  inputs: readonly EvalValue[],
): EvalValue[] {
  const fusion = new Fusion();
  build(fusion);
  return evaluate(fusion, inputs);
}

/** A symbolic input tensor of `dtype` matching `t`'s rank (size-1 dims become broadcasts when `bcast`). */
export function inputLike(fusion: Fusion, t: HostTensor, bcast = false): TensorView {
  const tv = makeTensor(fusion, { shape: t.sizes.map((s) => (bcast && s === 1 ? 1 : -1)), dtype: t.dtype });
  fusion.addInput(tv);
  return tv;
}

/** Relative difference, with NaN == NaN and exact match required for infinities. */
export function relErr(actual: number, expected: number): number {
  if (Number.isNaN(expected)) return Number.isNaN(actual) ? 0 : Infinity;
  if (!Number.isFinite(expected)) return actual === expected ? 0 : Infinity;
  if (expected === 0) return Math.abs(actual);
  return Math.abs(actual - expected) / Math.abs(expected);
}
