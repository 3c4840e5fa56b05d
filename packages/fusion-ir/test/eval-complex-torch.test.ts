// Complex ops in the reference evaluator against values PyTorch computed
// (test-fixtures/torch-values/complex.json, made by tools/torch-values/complex_values.py):
// arithmetic, the transcendental functions, predicates, complex/real/imag, casts, where and sum
// on ComplexFloat and ComplexDouble, with a row of special values (±inf, NaN, signed zeros, huge)
// in the inputs. Tolerance by dtype, per component, relative to the element's magnitude.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  Complex,
  Fusion,
  HostTensor,
  abs,
  add,
  cast,
  complex,
  cos,
  div,
  eq,
  evaluate,
  exp,
  imag,
  isfinite,
  isinf,
  isnan,
  log,
  makeTensor,
  mul,
  ne,
  neg,
  real,
  reciprocal,
  sin,
  sqrt,
  sub,
  sum,
  tanh,
  where,
  type DataType,
  type TensorView,
} from '../src/index.js';

type FixtureNumber = number | boolean | 'inf' | '-inf' | 'nan';
interface FixtureTensor {
  shape: number[];
  dtype: DataType;
  values: FixtureNumber[];
}
interface FixtureCase {
  op: string;
  args: { dims?: number[]; scalar?: number };
  inputs: FixtureTensor[];
  output: FixtureTensor;
}

const fixture = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/complex.json', import.meta.url)), 'utf8'),
) as { cases: FixtureCase[] };

function decode(v: FixtureNumber): number | boolean {
  if (v === 'inf') return Infinity;
  if (v === '-inf') return -Infinity;
  if (v === 'nan') return NaN;
  return v;
}

function hostTensor(t: FixtureTensor): HostTensor {
  const values = t.values.map(decode);
  if (t.dtype === 'ComplexFloat' || t.dtype === 'ComplexDouble') return HostTensor.fromComplexInterleaved(t.dtype, t.shape, values as number[]);
  return HostTensor.fromValues(t.dtype, t.shape, values);
}

const UNARY: Record<string, (x: TensorView) => TensorView> = {
  abs, neg, reciprocal, exp, log, sqrt, sin, cos, tanh, real, imag, isfinite, isnan, isinf,
};
const BINARY: Record<string, (a: TensorView, b: TensorView) => TensorView> = {
  add, sub, mul, div, eq, ne,
  complex: (a, b) => complex(a, b),
};

function build(c: FixtureCase, f: Fusion, tvs: TensorView[]): TensorView {
  const [a, b, d] = tvs as [TensorView, TensorView, TensorView];
  const unary = UNARY[c.op];
  if (unary !== undefined) return unary(a);
  const binary = BINARY[c.op];
  if (binary !== undefined) return binary(a, b);
  switch (c.op) {
    case 'mul_scalar':
      return mul(a, f.constant(c.args.scalar ?? 0, 'Double'));
    case 'cast_to_real':
    case 'cast_from_real':
    case 'cast_complex':
      return cast(a, c.output.dtype);
    case 'where':
      return where(a, b, d) as TensorView;
    case 'sum':
      return sum(a, c.args.dims ?? []);
    default:
      throw new Error(`unknown fixture op ${c.op}`);
  }
}

function run(c: FixtureCase): HostTensor {
  const f = new Fusion();
  const tvs = c.inputs.map((t) => {
    const tv = makeTensor(f, { shape: t.shape.map(() => -1), dtype: t.dtype });
    f.addInput(tv);
    return tv;
  });
  f.addOutput(build(c, f, tvs));
  const [out] = evaluate(f, c.inputs.map(hostTensor));
  return out as HostTensor;
}

function tolerance(dtype: DataType): number {
  return dtype === 'ComplexFloat' || dtype === 'Float' ? 2e-6 : 1e-13;
}

function close(actual: number, expected: number, magnitude: number, tol: number): boolean {
  if (Number.isNaN(expected)) return Number.isNaN(actual);
  if (!Number.isFinite(expected)) return actual === expected;
  return Math.abs(actual - expected) <= tol * Math.max(1, magnitude);
}

/** Mismatching elements of `actual` against the expected tensor, described for the failure message. */
function mismatches(actual: HostTensor, expected: FixtureTensor): string[] {
  const want = expected.values.map(decode);
  const bad: string[] = [];
  const tol = tolerance(expected.dtype);
  if (expected.dtype === 'ComplexFloat' || expected.dtype === 'ComplexDouble') {
    const got = actual.toComplexInterleaved();
    for (let i = 0; i < want.length; i += 2) {
      const [re, im] = [want[i] as number, want[i + 1] as number];
      const mag = Math.hypot(Number.isFinite(re) ? re : 0, Number.isFinite(im) ? im : 0);
      if (!close(got[i] as number, re, mag, tol) || !close(got[i + 1] as number, im, mag, tol)) {
        bad.push(`[${i / 2}] got ${String(new Complex(got[i] as number, got[i + 1] as number))}, torch ${String(new Complex(re, im))}`);
      }
    }
    return bad;
  }
  want.forEach((w, i) => {
    const g = actual.get(i);
    const ok = typeof w === 'boolean' ? g === w : close(Number(g), w, Math.abs(w), tol);
    if (!ok) bad.push(`[${i}] got ${String(g)}, torch ${String(w)}`);
  });
  return bad;
}

describe('complex ops against PyTorch', () => {
  it('has cases for every op and both complex dtypes', () => {
    expect(fixture.cases.length).toBeGreaterThan(60);
  });
  fixture.cases.forEach((c, k) => {
    const dtypes = c.inputs.map((t) => t.dtype).join(', ');
    it(`#${k} ${c.op}(${dtypes}) -> ${c.output.dtype}`, () => {
      const out = run(c);
      expect(out.dtype).toBe(c.output.dtype);
      expect(out.sizes).toEqual(c.output.shape);
      expect(mismatches(out, c.output)).toEqual([]);
    });
  });
});
