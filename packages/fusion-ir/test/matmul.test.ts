// matmul and linear (MatmulOp / LinearOp): values against PyTorch's (test-fixtures/torch-values/
// matmul.json, made by tools/torch-values/matmul_attention_values.py, seed in the file) for
// every rank case of torch.matmul, broadcast batches, odd sizes (1, 7, 129), Float / BFloat16 /
// Half, with tolerances by dtype and K; PyTorch's error messages at definition time (constant
// sizes) and at eval time (symbolic sizes); the output domains and nvFuser's printed form; and
// a random differential against broadcast-multiply-sum (seed printed).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  broadcast,
  cast,
  EvaluationError,
  evaluate,
  Fusion,
  FusionIrError,
  HostTensor,
  linear,
  makeTensor,
  matmul,
  matmulFloat64,
  mul,
  permute,
  printMath,
  sum,
  type DataType,
  type TensorView,
} from '../src/index.js';

type Json = number | string | boolean;
interface Operand {
  shape: number[];
  values: Json[];
}
interface Case {
  op: 'matmul' | 'linear';
  dtype: DataType;
  a: Operand;
  b: Operand;
  bias?: Operand;
  outShape: number[];
  expected: Json[];
}
interface ErrorCase {
  op: 'matmul' | 'linear';
  a: number[];
  b: number[];
  bias?: number[] | null;
  dtypes: DataType[];
  message: string;
}

const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/matmul.json', import.meta.url)), 'utf8')) as {
  generator: string;
  cases: Case[];
  errors: ErrorCase[];
};

const num = (v: Json): number => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : Number(v));

/** One ulp at 1 of each output dtype (PyTorch's CPU GEMM rounds its f32 accumulator once, as the reference rounds its f64 one). */
const EPS: Partial<Record<DataType, number>> = { Float: 2 ** -23, Half: 2 ** -10, BFloat16: 2 ** -7, Double: 2 ** -52 };

function input(f: Fusion, dtype: DataType, shape: readonly number[], symbolic: boolean): TensorView {
  const t = makeTensor(f, { shape: shape.map((s) => (symbolic && s !== 1 ? -1 : s)), dtype });
  f.addInput(t);
  return t;
}

function build(c: { op: 'matmul' | 'linear'; a: readonly number[]; b: readonly number[]; bias?: readonly number[] | null }, dtypes: readonly DataType[], symbolic: boolean): Fusion {
  const f = new Fusion();
  const a = input(f, dtypes[0] as DataType, c.a, symbolic);
  const b = input(f, dtypes[1] as DataType, c.b, symbolic);
  const bias = c.bias === undefined || c.bias === null ? null : input(f, dtypes[2] ?? (dtypes[0] as DataType), c.bias, symbolic);
  f.addOutput(c.op === 'matmul' ? matmul(a, b) : linear(a, b, bias));
  return f;
}

function tensorOf(dtype: DataType, o: Operand): HostTensor {
  return HostTensor.fromValues(dtype, o.shape, o.values.map(num));
}

/** |got − want| ≤ ulp(want) + 2K·2⁻²⁴·Σ|a||b| (f32 accumulation of K products, as PyTorch's CPU kernels). */
function checkCase(c: Case, got: HostTensor): void {
  const a = { sizes: c.a.shape, values: Float64Array.from(c.a.values.map((v) => Math.abs(num(v)))) };
  const bShape = c.op === 'linear' && c.b.shape.length === 2 ? [c.b.shape[1] as number, c.b.shape[0] as number] : c.b.shape;
  let bAbs = c.b.values.map((v) => Math.abs(num(v)));
  if (c.op === 'linear' && c.b.shape.length === 2) {
    const [n, k] = c.b.shape as [number, number];
    bAbs = Array.from({ length: n * k }, (_, i) => bAbs[(i % n) * k + Math.floor(i / n)] as number);
  }
  const absProd = matmulFloat64(a, { sizes: bShape, values: Float64Array.from(bAbs) }).values;
  const k = c.a.shape[c.a.shape.length - 1] as number;
  const eps = EPS[c.dtype] as number;
  expect([...got.sizes]).toEqual(c.outShape);
  const values = got.toNumbers();
  c.expected.forEach((w, i) => {
    const want = num(w);
    const tol = eps * Math.abs(want) + 2 * k * 2 ** -24 * (absProd[i] as number) + (c.bias === undefined ? 0 : eps * 2);
    const diff = Math.abs((values[i] as number) - want);
    if (!(diff <= tol)) throw new Error(`${c.op} ${c.dtype} [${c.a.shape}]·[${c.b.shape}] element ${i}: ${values[i]} vs PyTorch ${want} (tol ${tol}) — ${fixture.generator}`);
  });
}

describe('matmul / linear against PyTorch', () => {
  for (const c of fixture.cases) {
    for (const symbolic of [false, true]) {
      it(`${c.op} ${c.dtype} [${c.a.shape.join(', ')}] · [${c.b.shape.join(', ')}]${c.bias ? ` + [${c.bias.shape.join(', ')}]` : ''} ${symbolic ? 'symbolic' : 'static'}`, () => {
        const f = build({ op: c.op, a: c.a.shape, b: c.b.shape, bias: c.bias?.shape ?? null }, [c.dtype, c.dtype, c.dtype], symbolic);
        const inputs = [tensorOf(c.dtype, c.a), tensorOf(c.dtype, c.b), ...(c.bias ? [tensorOf(c.dtype, c.bias)] : [])];
        const [out] = evaluate(f, inputs) as HostTensor[];
        expect(out?.dtype).toBe(c.dtype);
        checkCase(c, out as HostTensor);
      });
    }
  }
});

describe('PyTorch error messages', () => {
  for (const e of fixture.errors) {
    const label = `${e.op} [${e.a.join(', ')}] · [${e.b.join(', ')}]${e.bias ? ` + [${e.bias.join(', ')}]` : ''} (${e.dtypes.join(', ')})`;
    it(`${label}: at definition time with constant sizes`, () => {
      expect(() => build(e, e.dtypes, false)).toThrow(FusionIrError);
      expect(() => build(e, e.dtypes, false)).toThrow(e.message);
    });
    const dtypeError = new Set(e.dtypes).size > 1;
    if (!dtypeError) {
      it(`${label}: at eval time with symbolic sizes`, () => {
        const f = build(e, e.dtypes, true);
        const zeros = (s: number[], d: DataType): HostTensor => HostTensor.fromValues(d, s, new Array<number>(s.reduce((x, y) => x * y, 1)).fill(0));
        const inputs = [zeros(e.a, e.dtypes[0] as DataType), zeros(e.b, e.dtypes[1] as DataType), ...(e.bias ? [zeros(e.bias, e.dtypes[0] as DataType)] : [])];
        expect(() => evaluate(f, inputs)).toThrow(EvaluationError);
        expect(() => evaluate(f, inputs)).toThrow(e.message);
      });
    }
  }
  it('refuses 0-dim operands, integer dtypes and a 3-D weight', () => {
    const f = new Fusion();
    expect(() => matmul(input(f, 'Float', [], false), input(f, 'Float', [3], false))).toThrow('both arguments to matmul need to be at least 1D, but they are 0D and 1D');
    expect(() => matmul(input(f, 'Int', [2, 3], false), input(f, 'Int', [3, 2], false))).toThrow(/must be Float, Half, BFloat16 or Double/);
    expect(() => linear(input(f, 'Float', [2, 3], false), input(f, 'Float', [2, 4, 3], false))).toThrow('t() expects a tensor with <= 2 dimensions, but self is 3D');
  });
  it('a symbolic dim of size 1 does not broadcast silently', () => {
    const f = build({ op: 'matmul', a: [2, 3, 4], b: [2, 4, 5] }, ['Float', 'Float'], true);
    const z = (s: number[]): HostTensor => HostTensor.fromValues('Float', s, new Array<number>(s.reduce((x, y) => x * y, 1)).fill(1));
    expect(() => evaluate(f, [z([1, 3, 4]), z([2, 4, 5])])).toThrow(/does not broadcast: define it as a broadcast dim/);
  });
});

describe('output domains and printing', () => {
  it('matmul has nvFuser’s output domain (batch, M, N, rK) and printed form', () => {
    const f = new Fusion();
    const a = input(f, 'BFloat16', [2, -1, 5, 7], false);
    const b = input(f, 'BFloat16', [1, 7, 3], false);
    const y = matmul(a, b);
    f.addOutput(y);
    expect(y.domain.logical.map((id) => id.iterType)).toEqual(['Iteration', 'Iteration', 'Iteration', 'Iteration', 'Reduction']);
    expect(y.dtype).toBe('BFloat16');
    // nvFuser's MatmulOp::toString: indent + 1 level, then 10 spaces before the second operand.
    expect(printMath(f)).toBe(
      '%kernel_math {\nT2_g[ iS7{2}, iS8{i1}, iS9{5}, iS10{3}, rS11{7} ]\n   = matmul(T0_g[ iS0{2}, iS1{i1}, iS2{5}, iS3{7} ],\n' +
        '            T1_g[ bS4{1}, iS5{7}, iS6{3} ])\n}\n',
    );
  });
  it('dot gives a 0-dim result with only rK; K broadcast on both sides gives no reduction', () => {
    const f = new Fusion();
    const d = matmul(input(f, 'Float', [-1], false), input(f, 'Float', [-1], false));
    expect(d.rank()).toBe(0);
    expect(d.domain.logical.map((id) => id.iterType)).toEqual(['Reduction']);
    const outer = matmul(input(f, 'Float', [4, 1], false), input(f, 'Float', [1, 5], false));
    expect(outer.domain.logical.map((id) => id.iterType)).toEqual(['Iteration', 'Iteration']);
  });
  it('linear prints as nvFuser’s LinearOp (with and without bias)', () => {
    const f = new Fusion();
    const x = input(f, 'Half', [-1, 7], false);
    const w = input(f, 'Half', [5, 7], false);
    const bias = input(f, 'Half', [5], false);
    f.addOutput(linear(x, w, bias));
    f.addOutput(linear(x, w));
    const text = printMath(f);
    expect(text).toContain(' = linear(T0_g[');
    expect(text).toMatch(/T1_g\[ [^\n]*\]  ,\n {10}T2_g\[ [^\n]*\]  \)\n/);
    expect(text).toMatch(/T1_g\[ [^\n]*\]  \)\n/);
  });
});

function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('random differential: MatmulOp against broadcast-multiply-sum', () => {
  const seed = Number(process.env.TSFUSER_SEED ?? Math.floor(Math.random() * 2 ** 31));
  it(`40 random rank/size/dtype cases agree (seed ${seed}; replay with TSFUSER_SEED=${seed})`, () => {
    const r = mulberry32(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
    for (let t = 0; t < 40; t += 1) {
      const m = pick([1, 3, 7]);
      const k = pick([1, 5, 9]);
      const n = pick([1, 2, 6]);
      const batch = pick([[], [2], [3, 2]] as number[][]);
      const dtype = pick(['Float', 'Double', 'BFloat16'] as DataType[]);
      const f = new Fusion();
      const a = input(f, dtype, [...batch, m, k], true);
      const b = input(f, dtype, [k, n], true);
      f.addOutput(matmul(a, b));
      // The same product as broadcast-multiply-sum in Double (an independent path through the evaluator).
      const rank = batch.length;
      const ad = broadcast(cast(a, 'Double'), [...new Array<boolean>(rank + 1).fill(false), true, false]);
      const bd = broadcast(permute(cast(b, 'Double'), [1, 0]), [...new Array<boolean>(rank + 1).fill(true), false, false]);
      f.addOutput(cast(sum(mul(ad, bd), [-1]), dtype));
      const values = (s: number[]): HostTensor => HostTensor.fromValues(dtype, s, Array.from({ length: s.reduce((x, y) => x * y, 1) }, () => r() * 2 - 1));
      const [got, want] = evaluate(f, [values([...batch, m, k]), values([k, n])]) as HostTensor[];
      const g = (got as HostTensor).toNumbers();
      const w = (want as HostTensor).toNumbers();
      expect(g.length, `seed ${seed} case ${t}`).toBe(w.length);
      g.forEach((x, i) => expect(x, `seed ${seed} case ${t} [${batch}, ${m}, ${k}]·[${k}, ${n}] ${dtype} element ${i}`).toBe(w[i]));
    }
  });
});
