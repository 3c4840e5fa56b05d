// cumsum, cumprod, cummin, cummax, argsort and topk in the reference evaluator against values
// PyTorch computed (test-fixtures/torch-values/scan-sort.json, made by
// tools/torch-values/scan-sort.py): ties (stable order), NaN and infinities, every dim, Int and
// low-precision dtypes; plus the ops' shapes, dtypes, printing and refusals.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Fusion, HostTensor, argsort, cumsum, evaluate, makeTensor, printMath, scan, topk, type DataType, type ScanOpType } from '../src/index.js';

type Json = number | string | boolean;
interface Case {
  name: string;
  op: 'cumsum' | 'cumprod' | 'cummin' | 'cummax' | 'argsort' | 'topk';
  dtype: DataType;
  shape: number[];
  input: Json[];
  expected: Json[];
  expectedIndices?: number[];
  dim: number;
  descending?: boolean;
  k?: number;
  largest?: boolean;
}

const fixture = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/scan-sort.json', import.meta.url)), 'utf8'),
) as { cases: Case[] };

const decode = (v: Json): number => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : Number(v));
const SCAN: Record<string, ScanOpType> = { cumsum: 'add', cumprod: 'mul', cummin: 'min', cummax: 'max' };

function run(c: Case): HostTensor[] {
  const f = new Fusion();
  const x = makeTensor(f, { shape: c.shape.map(() => -1), dtype: c.dtype });
  f.addInput(x);
  const scanOp = SCAN[c.op];
  if (scanOp !== undefined) f.addOutput(scan(x, c.dim, scanOp));
  else if (c.op === 'argsort') f.addOutput(argsort(x, c.dim, c.descending ?? false, true));
  else {
    const r = topk(x, c.k ?? 1, c.dim, c.largest ?? true, true);
    f.addOutput(r.values);
    f.addOutput(r.indices);
  }
  const values = c.dtype === 'Int' ? c.input.map((v) => BigInt(v as number)) : c.input.map(decode);
  return evaluate(f, [HostTensor.fromValues(c.dtype, c.shape, values)]) as HostTensor[];
}

/** Tolerance of a scan prefix: low precision accumulates in float in PyTorch (one rounding apart). */
function tolerance(c: Case, want: number): number {
  if (c.op === 'cummin' || c.op === 'cummax' || c.op === 'argsort' || c.op === 'topk') return 0;
  const rel = c.dtype === 'Half' ? 2 ** -10 : c.dtype === 'BFloat16' ? 2 ** -7 : c.dtype === 'Float' ? 2 ** -23 : 0;
  return rel * Math.max(1, Math.abs(want)) * 4;
}

function same(got: number, want: number, tol: number): boolean {
  if (Number.isNaN(want)) return Number.isNaN(got);
  if (!Number.isFinite(want)) return got === want;
  return Math.abs(got - want) <= tol;
}

describe('scans and sorts match PyTorch', () => {
  for (const c of fixture.cases) {
    it(`${c.name}: ${c.op} ${c.dtype} [${c.shape.join(', ')}] dim ${c.dim}`, () => {
      const [out, idx] = run(c);
      const got = (out as HostTensor).toNumbers();
      const want = c.expected.map(decode);
      expect(got.length).toBe(want.length);
      got.forEach((v, i) => expect(same(v, want[i] as number, tolerance(c, want[i] as number)), `${c.name}[${i}] = ${v}, torch ${want[i]}`).toBe(true));
      if (c.op === 'topk') {
        const gotIdx = (idx as HostTensor).toNumbers();
        const wantIdx = c.expectedIndices ?? [];
        // Where values tie PyTorch's topk may pick any of the equal elements; tsfuser picks the lowest index.
        // Either way the index must point at the value; without ties it must equal torch's.
        const input = c.input.map(decode);
        const inner = c.shape.slice(c.dim < 0 ? c.dim + c.shape.length + 1 : c.dim + 1).reduce((a, b) => a * b, 1);
        const n = c.shape.at(c.dim) as number;
        const k = c.k ?? 1;
        gotIdx.forEach((p, i) => {
          const o = Math.floor(i / (k * inner));
          const j = i % inner;
          const v = input[o * n * inner + p * inner + j] as number;
          expect(same(v, want[i] as number, 0), `${c.name}: index ${p} at ${i} holds ${v}, not ${want[i]}`).toBe(true);
          const row = Array.from({ length: n }, (_, q) => input[o * n * inner + q * inner + j] as number);
          const ties = row.filter((w) => same(w, v, 0)).length;
          if (ties === 1) expect(p, `${c.name} index ${i}`).toBe(wantIdx[i]);
        });
      }
    });
  }
});

describe('scan and sort ops', () => {
  it('cumsum keeps shape and dtype, prints as nvFuser, and refuses Bool with a clear error', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Half' });
    f.addInput(x);
    const y = cumsum(x, -1);
    f.addOutput(y);
    expect(y.dtype).toBe('Half');
    expect(printMath(f)).toMatch(/= scan\(T0_g\[.*\],\n\s+dim=1,\n\s+op_type=add,\n\s+init=.*\)/);
    const b = makeTensor(f, { shape: [-1], dtype: 'Bool' });
    expect(() => cumsum(b, 0)).toThrow(/cumsum: .*Bool/);
    expect(() => cumsum(x, 2)).toThrow(/cumsum: dim 2 is out of range/);
  });
  it('argsort gives Int indices and topk (values, indices) with dim k; k larger than the dim is an error', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [4, 10], dtype: 'Float' });
    f.addInput(x);
    const i = argsort(x, 1, true);
    const r = topk(x, 3);
    f.addOutput(i);
    f.addOutput(r.values);
    f.addOutput(r.indices);
    expect(i.dtype).toBe('Int');
    expect(r.values.dtype).toBe('Float');
    expect(r.indices.dtype).toBe('Int');
    expect(r.values.domain.logical[1]?.extent.constNumber()).toBe(3);
    const text = printMath(f);
    expect(text).toContain('= argsort( T0_g[');
    expect(text).toContain('dim = 1, descending = True, stable = False )');
    expect(text).toMatch(/\( T\d+_g\[.*\], T\d+_g\[.*\] \) = topk\( T0_g\[.*\], 3, dim = 1, largest = True, sorted = False \)/);
    expect(() => topk(x, 11)).toThrow(/topk: k = 11 is larger than dim 1/);
  });
  it('topk with a symbolic k takes its extent from k and checks k against the size at evaluation', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1], dtype: 'Float' });
    const k = f.newSymbolicScalar('Int');
    f.addInput(x);
    f.addInput(k);
    const r = topk(x, k);
    f.addOutput(r.values);
    f.addOutput(r.indices);
    const input = HostTensor.fromValues('Float', [5], [3, -1, 7, 7, 0]);
    const [v, i] = evaluate(f, [input, 2n]) as HostTensor[];
    expect(v?.sizes).toEqual([2]);
    expect(v?.toNumbers()).toEqual([7, 7]);
    expect(i?.toNumbers()).toEqual([2, 3]);
    expect(() => evaluate(f, [input, 6n])).toThrow(/topk producing T\d+: k = 6 is out of range for dim 0 of size 5/);
  });
});
