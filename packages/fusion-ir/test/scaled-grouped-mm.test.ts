// scaled_mm (per-tensor fp8 scales) and grouped_mm (groups cut by offsets) against PyTorch's
// torch._scaled_mm / torch._grouped_mm (test-fixtures/torch-values/matmul.json, made by
// tools/torch-values/matmul_attention_values.py, seed in the file): e4m3 × e4m3 and e4m3 × e5m2,
// BFloat16 and Float outputs, a bias; the 2d×3d (offsets cut M, with rows no group covers),
// 3d×2d (N), 2d×2d (K) and 3d×3d cases; tolerance by output dtype and K. Plus the refusals
// (block-scaled scales, alpha/beta, wrong dtypes, offsets that are not int32 or run past the dim),
// the printed forms, and a random differential of grouped_mm against per-group matmuls (seed
// printed).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  evaluate,
  EvaluationError,
  Fusion,
  FusionIrError,
  groupedMm,
  HostTensor,
  makeTensor,
  matmul,
  printMath,
  scaledMm,
  slice,
  type DataType,
  type TensorView,
} from '../src/index.js';

type Json = number | string | boolean;
interface Operand {
  shape: number[];
  values: Json[];
}
interface ScaledCase {
  dtypes: [DataType, DataType];
  outDtype: DataType;
  a: Operand;
  b: Operand;
  bias?: Operand;
  scale1: number;
  scale2: number;
  outShape: number[];
  expected: Json[];
}
interface GroupedCase {
  kind: string;
  dtype: DataType;
  a: Operand;
  b: Operand;
  offsets?: number[];
  outShape: number[];
  expected: Json[];
}
const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/matmul.json', import.meta.url)), 'utf8')) as {
  generator: string;
  scaledMm: ScaledCase[];
  groupedMm: GroupedCase[];
};
const num = (v: Json): number => Number(v);
const EPS: Partial<Record<DataType, number>> = { Float: 2 ** -23, BFloat16: 2 ** -7, Half: 2 ** -10 };

function input(f: Fusion, dtype: DataType, shape: readonly number[]): TensorView {
  const t = makeTensor(f, { shape: shape.map((s) => (s === 1 ? 1 : -1)), dtype });
  f.addInput(t);
  return t;
}

function close(what: string, got: HostTensor, want: readonly Json[], eps: number, k: number, scale: number): void {
  const g = got.toNumbers();
  expect(g.length, what).toBe(want.length);
  want.forEach((w, i) => {
    const y = num(w);
    // one rounding of the output plus f32 accumulation of K products of magnitude ≤ scale
    const tol = eps * Math.abs(y) + k * 2 ** -23 * scale;
    if (!(Math.abs((g[i] as number) - y) <= tol)) throw new Error(`${what}[${i}] = ${g[i]}, PyTorch ${y} (tol ${tol}) — ${fixture.generator}`);
  });
}

const maxAbs = (o: Operand): number => Math.max(...o.values.map((v) => Math.abs(num(v))));

describe('scaled_mm against torch._scaled_mm', () => {
  for (const c of fixture.scaledMm) {
    it(`${c.dtypes.join(' × ')} → ${c.outDtype} [${c.a.shape}]·[${c.b.shape}]${c.bias ? ' + bias' : ''}`, () => {
      const f = new Fusion();
      const a = input(f, c.dtypes[0], c.a.shape);
      const b = input(f, c.dtypes[1], c.b.shape);
      const s1 = input(f, 'Float', []);
      const s2 = input(f, 'Float', []);
      const bias = c.bias ? input(f, 'BFloat16', c.bias.shape) : null;
      f.addOutput(scaledMm(a, b, s1, s2, { bias, dtype: c.outDtype }));
      const inputs = [
        HostTensor.fromValues(c.dtypes[0], c.a.shape, c.a.values.map(num)),
        HostTensor.fromValues(c.dtypes[1], c.b.shape, c.b.values.map(num)),
        HostTensor.fromValues('Float', [], [c.scale1]),
        HostTensor.fromValues('Float', [], [c.scale2]),
        ...(c.bias ? [HostTensor.fromValues('BFloat16', c.bias.shape, c.bias.values.map(num))] : []),
      ];
      const [out] = evaluate(f, inputs) as HostTensor[];
      expect(out?.dtype).toBe(c.outDtype);
      expect([...(out as HostTensor).sizes]).toEqual(c.outShape);
      const k = c.a.shape[1] as number;
      close('scaled_mm', out as HostTensor, c.expected, EPS[c.outDtype] as number, k, maxAbs(c.a) * maxAbs(c.b) * c.scale1 * c.scale2);
    });
  }
  it('refuses what it does not compute, with the reason', () => {
    const f = new Fusion();
    const a = makeTensor(f, { shape: [16, 32], dtype: 'Float8_e4m3fn' });
    const b = makeTensor(f, { shape: [32, 16], dtype: 'Float8_e4m3fn' });
    const s = makeTensor(f, { shape: [], dtype: 'Float' });
    expect(() => scaledMm(a, b, makeTensor(f, { shape: [16, 1], dtype: 'Float' }), s)).toThrow(/not a per-tensor scale .* block-scaled and row-wise scales/);
    expect(() => scaledMm(a, b, s, s, { alpha: s })).toThrow(/alpha and beta .* not supported/);
    expect(() => scaledMm(a, b, s, s, { outputBlockScaleSize: 16 })).toThrow(/block-scaled outputs/);
    expect(() => scaledMm(makeTensor(f, { shape: [16, 32], dtype: 'BFloat16' }), b, s, s)).toThrow(/must be Float8_e4m3fn or Float8_e5m2/);
    expect(() => scaledMm(a, makeTensor(f, { shape: [30, 16], dtype: 'Float8_e4m3fn' }), s, s)).toThrow('mat_a and mat_b shapes cannot be multiplied (16x32 and 30x16)');
    const e5 = makeTensor(f, { shape: [16, 32], dtype: 'Float8_e5m2' });
    expect(() => scaledMm(e5, makeTensor(f, { shape: [32, 16], dtype: 'Float8_e5m2' }), s, s)).toThrow(FusionIrError);
  });
  it("prints as nvFuser's ScaledMmaOp", () => {
    const f = new Fusion();
    const a = makeTensor(f, { shape: [16, 32], dtype: 'Float8_e4m3fn' });
    const b = makeTensor(f, { shape: [32, 8], dtype: 'Float8_e4m3fn' });
    const s = makeTensor(f, { shape: [], dtype: 'Float' });
    f.addOutput(scaledMm(a, b, s, s));
    expect(printMath(f)).toContain('T3_g[ iS4{16}, iS5{8}, rS6{32} ] = ScaledMmaOp(mat1=T0_l[ iS0{16}, iS1{32} ], mat2=T1_l[ iS2{32}, iS3{8} ], scale1=T2_l[ 0 ], scale2=T2_l[ 0 ])\n');
  });
});

describe('grouped_mm against torch._grouped_mm', () => {
  for (const c of fixture.groupedMm) {
    it(`${c.kind} [${c.a.shape}]·[${c.b.shape}]${c.offsets ? ` offsets [${c.offsets}]` : ''}`, () => {
      const f = new Fusion();
      const a = input(f, c.dtype, c.a.shape);
      const b = input(f, c.dtype, c.b.shape);
      const offs = c.offsets ? input(f, 'Int32', [c.offsets.length]) : null;
      f.addOutput(groupedMm(a, b, offs));
      const inputs = [
        HostTensor.fromValues(c.dtype, c.a.shape, c.a.values.map(num)),
        HostTensor.fromValues(c.dtype, c.b.shape, c.b.values.map(num)),
        ...(c.offsets ? [HostTensor.fromValues('Int32', [c.offsets.length], c.offsets)] : []),
      ];
      const [out] = evaluate(f, inputs) as HostTensor[];
      expect([...(out as HostTensor).sizes]).toEqual(c.outShape);
      close('grouped_mm', out as HostTensor, c.expected, EPS[c.dtype] as number, c.a.shape[c.a.shape.length - 1] as number, maxAbs(c.a) * maxAbs(c.b));
    });
  }
  it('checks the offsets: int32, 1-D, and at eval non-decreasing within the cut dim', () => {
    const f = new Fusion();
    const a = input(f, 'BFloat16', [24, 16]);
    const b = input(f, 'BFloat16', [3, 16, 8]);
    expect(() => groupedMm(a, b, input(f, 'Int', [3]))).toThrow('Offsets have to be int32');
    expect(() => groupedMm(a, b, null)).toThrow('Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d');
    const g = new Fusion();
    g.addOutput(groupedMm(input(g, 'BFloat16', [24, 16]), input(g, 'BFloat16', [3, 16, 8]), input(g, 'Int32', [3])));
    const z = (d: DataType, s: number[]): HostTensor => HostTensor.fromValues(d, s, new Array<number>(s.reduce((x, y) => x * y, 1)).fill(0));
    for (const bad of [[3, 7, 25], [5, 3, 24]]) {
      expect(() => evaluate(g, [z('BFloat16', [24, 16]), z('BFloat16', [3, 16, 8]), HostTensor.fromValues('Int32', [3], bad)])).toThrow(EvaluationError);
      expect(() => evaluate(g, [z('BFloat16', [24, 16]), z('BFloat16', [3, 16, 8]), HostTensor.fromValues('Int32', [3], bad)])).toThrow(/must be non-decreasing and at most 24/);
    }
  });
  it("prints as nvFuser's GroupedMmaOp", () => {
    const f = new Fusion();
    const a = makeTensor(f, { shape: [24, 16], dtype: 'BFloat16' });
    const b = makeTensor(f, { shape: [3, 16, 8], dtype: 'BFloat16' });
    const o = makeTensor(f, { shape: [3], dtype: 'Int32' });
    f.addOutput(groupedMm(a, b, o));
    expect(printMath(f)).toContain(' = GroupedMmaOp(mat1=T0_l[ iS0{24}, iS1{16} ], mat2=T1_l[ iS2{3}, iS3{16}, iS4{8} ], offsets=T2_l[ iS5{3} ])\n');
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

describe('random differential: grouped_mm 2d×3d against one matmul per group', () => {
  const seed = Number(process.env.TSFUSER_SEED ?? Math.floor(Math.random() * 2 ** 31));
  it(`15 random group splits agree exactly (seed ${seed}; replay with TSFUSER_SEED=${seed})`, () => {
    const r = mulberry32(seed);
    for (let t = 0; t < 15; t += 1) {
      const g = 1 + Math.floor(r() * 4);
      const k = 1 + Math.floor(r() * 9);
      const n = 1 + Math.floor(r() * 6);
      const ends: number[] = [];
      let m = 0;
      for (let i = 0; i < g; i += 1) ends.push((m += Math.floor(r() * 5)));
      const f = new Fusion();
      const a = makeTensor(f, { shape: [m, k], dtype: 'Double' });
      const b = makeTensor(f, { shape: [g, k, n], dtype: 'Double' });
      const o = makeTensor(f, { shape: [g], dtype: 'Int32' });
      [a, b, o].forEach((x) => f.addInput(x));
      f.addOutput(groupedMm(a, b, o));
      let start = 0;
      ends.forEach((end, gi) => {
        const rows = slice(a, [start, 0], [end, k]);
        const w = slice(b, [gi, 0, 0], [gi + 1, k, n]);
        f.addOutput(matmul(rows, w));
        start = end;
      });
      const values = (shape: number[]): HostTensor => HostTensor.fromValues('Double', shape, Array.from({ length: shape.reduce((x, y) => x * y, 1) }, () => r() * 2 - 1));
      const [got, ...groups] = evaluate(f, [values([m, k]), values([g, k, n]), HostTensor.fromValues('Int32', [g], ends)]) as HostTensor[];
      const want = groups.flatMap((x) => x.toNumbers());
      expect((got as HostTensor).toNumbers(), `seed ${seed} case ${t}: offsets [${ends}], K ${k}, N ${n}`).toEqual(want);
    }
  });
});
