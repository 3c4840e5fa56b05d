// parseJitIR on real TorchScript graphs with complex and float8 ops (traced and profiled scripted
// graphs of test-fixtures/torchscript/complex-fp8.json, made by
// tools/torchscript/generate_complex_fp8_graphs.py with PyTorch): each lowers to one Fusion whose
// reference-evaluator outputs equal PyTorch's (float8 values exactly, computed values within a
// tolerance by dtype: there are no reductions, so no summation order to allow for); the float8
// ScalarType codes equal PyTorch's; an op tsfuser cannot lower on these dtypes is one error
// naming the op and the source line:col.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evaluate, HostTensor, isComplexType, isFloat8Type, type DataType } from '@tsfuser/fusion-ir';
import { lowerTupleOutputs, parseIR, SCALAR_TYPE_CODES, type Graph } from '@tsfuser/jit-ir';
import { fuseGraph, guardFusionGroups, JitLoweringError, parseJitIR, runGraph } from '../src/index.js';

type FixtureNumber = number | boolean | 'inf' | '-inf' | 'nan';
interface FixtureTensor {
  shape: number[];
  dtype: DataType;
  values: FixtureNumber[];
}
interface FixtureCase {
  name: string;
  kind: 'traced' | 'scripted';
  graph: string;
  inputs: FixtureTensor[];
  outputs: FixtureTensor[];
}
interface Fixture {
  torch: string;
  scalarTypeCodes: Record<string, number>;
  cases: FixtureCase[];
  errors: { name: string; graph: string; op: string; position: string }[];
}

const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test-fixtures/torchscript/complex-fp8.json', import.meta.url)), 'utf8')) as Fixture;

function decode(v: FixtureNumber): number {
  if (v === 'inf') return Infinity;
  if (v === '-inf') return -Infinity;
  if (v === 'nan') return NaN;
  return typeof v === 'boolean' ? Number(v) : v;
}

function hostTensor(t: FixtureTensor): HostTensor {
  const values = t.values.map(decode);
  return isComplexType(t.dtype) ? HostTensor.fromComplexInterleaved(t.dtype, t.shape, values) : HostTensor.fromValues(t.dtype, t.shape, values);
}

/** The graph with a tuple output replaced by its elements (tuples are not fusion values). */
function untupled(text: string): Graph {
  const g = parseIR(text);
  lowerTupleOutputs(g);
  return g;
}

/** Relative tolerance per component (scaled by max(1, |element|)); float8 results are exact. */
const TOLERANCE: Partial<Record<DataType, number>> = { Float: 4e-6, ComplexFloat: 4e-6, Double: 1e-13, ComplexDouble: 1e-13, BFloat16: 8e-3, Half: 1e-3 };

function expectClose(got: HostTensor, want: FixtureTensor, label: string): void {
  expect(got.dtype, label).toBe(want.dtype);
  expect([...got.sizes], label).toEqual(want.shape);
  const g = isComplexType(got.dtype) ? [...got.toComplexInterleaved()] : got.toNumbers();
  const w = want.values.map(decode);
  const step = isComplexType(got.dtype) ? 2 : 1;
  const tol = isFloat8Type(got.dtype) ? 0 : (TOLERANCE[got.dtype] ?? 0);
  for (let i = 0; i < w.length; i += step) {
    const magnitude = step === 2 ? Math.hypot(w[i] as number, w[i + 1] as number) : Math.abs(w[i] as number);
    for (let k = i; k < i + step; k += 1) {
      const [a, b] = [g[k] as number, w[k] as number];
      if (Number.isNaN(b) ? Number.isNaN(a) : a === b || Math.abs(a - b) <= tol * Math.max(1, magnitude)) continue;
      expect.fail(`${label}: element ${Math.floor(k / step)}${step === 2 ? (k === i ? ' (real)' : ' (imag)') : ''}: got ${a}, PyTorch ${b}`);
    }
  }
}

describe(`parseJitIR: complex and float8 graphs from PyTorch ${fixture.torch}`, () => {
  for (const c of fixture.cases) {
    it(`${c.name} (${c.kind})`, () => {
      const fusion = parseJitIR(untupled(c.graph));
      const outs = evaluate(fusion, c.inputs.map(hostTensor));
      expect(outs.length).toBe(c.outputs.length);
      c.outputs.forEach((want, i) => expectClose(outs[i] as HostTensor, want, `${c.name} (${c.kind}) output ${i}`));
    });
  }

  for (const c of fixture.cases.filter((x) => x.kind === 'traced')) {
    it(`${c.name} (traced) through the fuser: fuseGraph (single nodes too), guards, runGraph on the reference backend`, () => {
      const graph = untupled(c.graph);
      fuseGraph(graph, { singletonFusion: true });
      guardFusionGroups(graph);
      const run = runGraph(graph, c.inputs.map(hostTensor));
      expect(run.groups.length, `${c.name}: fusion groups`).toBeGreaterThan(0);
      c.outputs.forEach((want, i) => expectClose(run.outputs[i] as HostTensor, want, `${c.name} (fused) output ${i}`));
    });
  }

  it('covers complex, real, imag, abs, angle, conj, _conj, resolve_conj, view_as_real, view_as_complex, and the float8 casts', () => {
    const text = fixture.cases.map((c) => c.graph).join('\n');
    for (const op of ['complex', 'real', 'imag', 'abs', 'angle', 'conj', '_conj', 'resolve_conj', 'view_as_real', 'view_as_complex', '_to_copy']) {
      expect(text, op).toContain(`aten::${op}(`);
    }
    for (const code of [23, 24, 44]) expect(text).toContain(`prim::Constant[value=${code}]()`);
  });

  it("maps the float8 ScalarType codes as PyTorch's c10::ScalarType", () => {
    expect(SCALAR_TYPE_CODES.Float8_e5m2).toBe(fixture.scalarTypeCodes['float8_e5m2']);
    expect(SCALAR_TYPE_CODES.Float8_e4m3fn).toBe(fixture.scalarTypeCodes['float8_e4m3fn']);
    expect(SCALAR_TYPE_CODES.Float8_e8m0fnu).toBe(fixture.scalarTypeCodes['float8_e8m0fnu']);
    expect(SCALAR_TYPE_CODES.Float8_e5m2fnuz).toBe(fixture.scalarTypeCodes['float8_e5m2fnuz']);
    expect(SCALAR_TYPE_CODES.Float8_e4m3fnuz).toBe(fixture.scalarTypeCodes['float8_e4m3fnuz']);
  });

  for (const e of fixture.errors) {
    it(`${e.name}: one error naming ${e.op} and line:col ${e.position}`, () => {
      let error: unknown = null;
      try {
        parseJitIR(untupled(e.graph));
      } catch (x) {
        error = x;
      }
      expect(error).toBeInstanceOf(JitLoweringError);
      const message = (error as Error).message;
      expect(message.startsWith(`${e.op}: `), message).toBe(true);
      expect(message).toContain(`generate_complex_fp8_graphs.py:${e.position}`);
      expect(message).not.toMatch(/\n\s+at .*\.ts:\d+/); // no stack trace
    });
  }
});
