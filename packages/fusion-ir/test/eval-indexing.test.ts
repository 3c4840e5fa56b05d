// The indexing ops in the reference evaluator against values PyTorch computed
// (test-fixtures/torch-values/indexing.json, made by tools/torch-values/indexing_values.py):
// select, index_select, gather, take_along_axis, scatter, index_put_accumulate and embedding
// forward over several dtypes, dims and ranks, and out-of-range indices as errors where torch
// raises one. Also: the printed form of each op, and shape errors at definition time.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  Fusion,
  HostTensor,
  embeddingFwd,
  evaluate,
  gather,
  indexPutAccumulate,
  indexSelect,
  makeTensor,
  printMath,
  scatter,
  select,
  takeAlongAxis,
  type DataType,
  type TensorView,
} from '../src/index.js';

interface FixtureTensor {
  shape: number[];
  dtype: DataType;
  values: number[];
}
interface FixtureCase {
  op: string;
  args: { dim?: number; index?: number; value?: number; padding_idx?: number };
  inputs: FixtureTensor[];
  expected?: FixtureTensor;
  error?: string;
}

const fixture = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/indexing.json', import.meta.url)), 'utf8'),
) as { cases: FixtureCase[] };

function hostTensor(t: FixtureTensor): HostTensor {
  const integral = t.dtype === 'Int' || t.dtype === 'Index';
  return HostTensor.fromValues(t.dtype, t.shape, integral ? t.values.map((v) => BigInt(v)) : t.values);
}

/** Builds the case's fusion (symbolic input sizes) and evaluates it on the case's inputs. */
function run(c: FixtureCase): HostTensor {
  const f = new Fusion();
  const tvs = c.inputs.map((t) => {
    const tv = makeTensor(f, { shape: t.shape.map(() => -1), dtype: t.dtype });
    f.addInput(tv);
    return tv;
  });
  const [a, b, s] = tvs as [TensorView, TensorView, TensorView | undefined];
  const dim = c.args.dim ?? 0;
  let out: TensorView;
  switch (c.op) {
    case 'index_select':
      out = indexSelect(a, dim, b);
      break;
    case 'select':
      out = select(a, dim, c.args.index ?? 0);
      break;
    case 'gather':
      out = gather(a, dim, b);
      break;
    case 'take_along_axis':
      out = takeAlongAxis(a, b, dim);
      break;
    case 'scatter':
      out = scatter(a, dim, b, s ?? (c.args.value as number));
      break;
    case 'index_put_accumulate':
      out = indexPutAccumulate(a, b, s as TensorView);
      break;
    case 'embedding_fwd':
      out = embeddingFwd(a, b, { paddingIdx: c.args.padding_idx ?? null });
      break;
    default:
      throw new Error(`unknown op ${c.op}`);
  }
  f.addOutput(out);
  return evaluate(f, c.inputs.map(hostTensor))[0] as HostTensor;
}

describe('indexing ops against PyTorch', () => {
  fixture.cases.forEach((c, k) => {
    const label = `${k}: ${c.op} ${JSON.stringify(c.args)} on ${c.inputs.map((t) => `${t.dtype}[${t.shape.join(', ')}]`).join(', ')}`;
    if (c.error !== undefined) {
      it(`${label} is an error (torch: ${c.error})`, () => {
        expect(() => run(c)).toThrow(/out of bounds for dim \d+ of T\d+ with size \d+ \(at index position \[/);
      });
      return;
    }
    it(label, () => {
      const want = c.expected as FixtureTensor;
      const out = run(c);
      expect(out.dtype).toBe(want.dtype);
      expect(out.sizes).toEqual(want.shape);
      const got = out.toNumbers();
      // Reads copy elements; index_put_accumulate adds in float64 and rounds once (torch adds in
      // float one by one), so Float sums may differ by a rounding or two.
      const tol = c.op === 'index_put_accumulate' && want.dtype === 'Float' ? 1e-6 : 0;
      got.forEach((v, i) => expect(Math.abs(v - (want.values[i] as number)), `element ${i}: ${v} vs torch ${want.values[i]}`).toBeLessThanOrEqual(tol * (1 + Math.abs(v))));
    });
  });
});

describe('indexing ops: definitions', () => {
  const tensors = (shapes: number[][], dtypes: DataType[]): { f: Fusion; tvs: TensorView[] } => {
    const f = new Fusion();
    const tvs = shapes.map((s, i) => {
      const tv = makeTensor(f, { shape: s, dtype: dtypes[i] ?? 'Float' });
      f.addInput(tv);
      return tv;
    });
    return { f, tvs };
  };

  it('print as nvFuser prints them', () => {
    const { f, tvs } = tensors([[-1, -1], [-1], [-1, -1]], ['Float', 'Int', 'Int']);
    const [x, i, i2] = tvs as [TensorView, TensorView, TensorView];
    f.addOutput(indexSelect(x, 0, i));
    f.addOutput(select(x, 1, 2));
    f.addOutput(gather(x, 1, i2));
    f.addOutput(takeAlongAxis(x, i2, 1));
    f.addOutput(scatter(x, 1, i2, x));
    f.addOutput(indexPutAccumulate(x, i, x));
    f.addOutput(embeddingFwd(i2, x, { paddingIdx: 0 }));
    const text = printMath(f);
    expect(text).toMatch(/ = indexSelect\( T0_g\[ iS0\{i0\}, iS1\{i1\} \], dim = 0, T\d+_l\[ iS\d+\{i2\}, bS\d+\{1\} \] \)/);
    expect(text).toMatch(/ = select\( T0_g\[ iS0\{i0\}, iS1\{i1\} \], axis = iS1\{i1\}, index = 2 \)/);
    expect(text).toMatch(/ = torchGather\( T0_g\[ [^\]]+\], dim = 1, T2_g\[ [^\]]+\] \)/);
    expect(text).toMatch(/ = takeAlongAxis\( T0_g\[ [^\]]+\], T2_g\[ [^\]]+\], dim = 1 \)/);
    expect(text).toMatch(/ = scatter\(in = T0_g\[ [^\]]+\], dim = 1, src = T0_g\[ [^\]]+\], idx = T2_g\[ [^\]]+\] \)/);
    expect(text).toMatch(/ = indexPutAccumulate\( T0_g\[ [^\]]+\], T1_g\[ [^\]]+\], T0_g\[ [^\]]+\] \)/);
    expect(text).toMatch(/ = embedding\(T2_g\[ [^\]]+\],\n\s+T0_g\[ [^\]]+\],\n\s+padding_idx = 0,\n\s+norm_type = double\(2\),\n\s+scale_grad_by_freq = false,\n\s+sparse = false\)/);
  });

  it('refuse bad operands with the op and the tensor named', () => {
    const { tvs } = tensors([[-1, -1], [-1, -1], [-1], [-1]], ['Float', 'Int', 'Float', 'Int']);
    const [x, i2, v, i1] = tvs as [TensorView, TensorView, TensorView, TensorView];
    expect(() => indexSelect(x, 0, i2)).toThrow(/index_select: index T1\[i2, i3\] \(Int\) must be a 1-D or 0-D tensor/);
    expect(() => indexSelect(x, 0, v)).toThrow(/index_select: index T2\[i4\] \(Float\) must have an integral dtype, got Float/);
    expect(() => indexSelect(x, 2, i1)).toThrow(/index_select: dim 2 is out of range for T0 of rank 2/);
    expect(() => gather(x, 0, i1)).toThrow(/gather: the input T0\[i0, i1\] \(Float\) and the index T3\[i5\] \(Int\) must have the same number of dims/);
    expect(() => select(x, 1, 0.5)).toThrow(/select: index 0.5 is not an integer/);
    expect(() => scatter(x, 0, i1, x)).toThrow(/scatter: self T0.* must all have the same number of dims/);
    expect(() => indexPutAccumulate(x, i2, x)).toThrow(/index_put_accumulate: index T1.* must be a 1-D tensor/);
    expect(() => embeddingFwd(i1, v)).toThrow(/embedding_fwd: weight T2\[i4\] \(Float\) must be 2-D/);
    // max_norm with a constant or run-time norm_type is supported (values against PyTorch:
    // tsfuser/test/definition-forms.test.ts).
  });

  it('index_select with a 0-D index keeps the dim (size 1)', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    const i = makeTensor(f, { shape: [], dtype: 'Int' });
    f.addInput(x);
    f.addInput(i);
    f.addOutput(indexSelect(x, 1, i));
    const out = evaluate(f, [HostTensor.fromValues('Float', [2, 3], [1, 2, 3, 4, 5, 6]), HostTensor.fromValues('Int', [], [2n])])[0] as HostTensor;
    expect(out.sizes).toEqual([2, 1]);
    expect(out.toNumbers()).toEqual([3, 6]);
  });
});
