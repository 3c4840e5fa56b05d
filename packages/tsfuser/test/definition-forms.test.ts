// nvFuser definition forms that tsfuser used to refuse (issue 36), imported from python as
// nvFuser's bindings take them and run on the reference backend against PyTorch's values
// (test-fixtures/torch-values/definition-forms.json, made by
// tools/torch-values/definition_forms_values.py; the generator's seed is in the file):
//   define_scalar(DataType.Int)          the define_scalar(dtype) binding: a symbolic scalar input
//   prod(arg, dtype)                     the reduction(arg, dtype) binding: every dim reduced
//   expand(T0, shape=[T0.size(0), …])    a symbolic non-broadcast extent expanded to itself
//   rsqrt of a complex tensor            1 / sqrt(z), principal branch
//   embedding_fwd(..., max_norm, …)      looked-up rows renormalized as F.embedding does (norm_type
//                                        a constant or given at run time)
//   pad / cat along a broadcast dim      a real dim (expand + where on an iota mask), so the GPU
//                                        path plans it (it refused a resize of a broadcast dim)
//   pad widths given at run time         an index_select of shifted positions + a where (the GPU
//                                        schedulers need constant widths for a PadOp)

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Tensor } from '@tsfuser/device';
import { HostTensor, type DataType } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { FusionCache, hashRecords, importPythonDefinition } from '../src/index.js';
import { fakeDevice } from './fake-device.js';

interface Stored {
  shape: number[];
  dtype: DataType;
  values: number[];
}
interface Case {
  op: string;
  args?: Record<string, number | string>;
  inputs: Stored[];
  output: Stored;
}

const FIXTURE = fileURLToPath(new URL('../../../test-fixtures/torch-values/definition-forms.json', import.meta.url));
const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { torch: string; seed: number; cases: Case[] };

const HEADER = 'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n';

function definition(body: string[]) {
  return importPythonDefinition(HEADER + body.map((l) => `    ${l}`).join('\n') + '\n', { cache: new FusionCache() });
}

function tensorOf(s: Stored): Tensor {
  if (s.dtype === 'ComplexFloat' || s.dtype === 'ComplexDouble') {
    return Tensor.fromComplexInterleaved(s.dtype === 'ComplexFloat' ? Float32Array.from(s.values) : Float64Array.from(s.values), s.shape, s.dtype);
  }
  const values = s.dtype === 'Int' ? s.values.map((v) => BigInt(v)) : s.values;
  return Tensor.fromHost(HostTensor.fromValues(s.dtype, s.shape, values));
}

/** Relative tolerance by dtype: a few units of the dtype's roundoff. */
function tolerance(dtype: DataType): number {
  if (dtype === 'Half') return 2e-3;
  if (dtype === 'BFloat16') return 1.6e-2;
  if (dtype === 'Float' || dtype === 'ComplexFloat') return 4e-6;
  return 1e-12;
}

function expectClose(got: Tensor | undefined, want: Stored, what: string): void {
  expect(got, what).toBeDefined();
  const g = got as Tensor;
  expect(g.dtype, what).toBe(want.dtype);
  expect([...g.sizes], what).toEqual(want.shape);
  const values = g.dtype === 'ComplexFloat' || g.dtype === 'ComplexDouble' ? Array.from(g.toComplexInterleaved()) : g.toHost().toNumbers();
  const tol = tolerance(want.dtype);
  const scale = Math.max(...want.values.map(Math.abs), 1e-30);
  values.forEach((v, i) => {
    const w = want.values[i] as number;
    expect(Math.abs(v - w), `${what}: element ${i}: got ${v}, PyTorch ${w} (seed ${fixture.seed})`).toBeLessThanOrEqual(tol * Math.max(Math.abs(w), scale * 1e-3));
  });
}

function casesOf(op: string): [string, Case][] {
  return fixture.cases.filter((c) => c.op === op).map((c) => [`${c.inputs.map((i) => i.dtype).join(', ')} ${JSON.stringify(c.args ?? {})}`, c]);
}

describe('define_tensor(shape, contiguity=<one bool>, stride_order=…) from python', () => {
  // nvFuser's getContiguityVec: the bool for every dim whose shape is not 1, None for size-1
  // dims, at allocation positions (entry k is the dim whose stride order is rank - 1 - k).
  it('puts the None of a size-1 dim at its allocation position (stride_order [0, 1]: contiguity [True, None])', () => {
    const fd = definition(['T0 = fd.define_tensor(shape=[1, 2], contiguity=True, stride_order=[0, 1])', 'T1 = fd.ops.add(T0, T0)', 'fd.add_output(T1)']);
    const record = fd.records()[0];
    expect(record?.args).toEqual([[1, 2], [true, null], 'Float', false, [0, 1]]);
  });
  it('runs on a [1, 2] tensor of strides (1, 1) (torch.randn(1, 2)) and doubles it', async () => {
    const fd = definition(['T0 = fd.define_tensor(shape=[1, 2], contiguity=True, stride_order=[0, 1])', 'T1 = fd.ops.add(T0, T0)', 'fd.add_output(T1)']);
    const [out] = await fd.execute([Tensor.from(new Float32Array([1.5, -2]), [1, 2], 'Float')], { backend: 'reference' });
    expect(out?.toHost().toNumbers()).toEqual([3, -4]);
  });
  it('without a stride order equals the list form', () => {
    const a = definition(['T0 = fd.define_tensor(shape=[-1, 1, -1], contiguity=False)', 'fd.add_output(T0)']);
    const b = definition(['T0 = fd.define_tensor(shape=[-1, 1, -1], contiguity=[False, None, False])', 'fd.add_output(T0)']);
    expect(hashRecords(a.records())).toBe(hashRecords(b.records()));
  });
});

describe('define_scalar(DataType.Int): the dtype as the only positional argument', () => {
  it('is a symbolic scalar input of that dtype, the same records as define_scalar(None, dtype=…)', async () => {
    const positional = definition(['S0 = fd.define_scalar(DataType.Int)', 'T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)', 'T2 = fd.ops.mul(T1, S0)', 'fd.add_output(T2)']);
    const keyword = definition(['S0 = fd.define_scalar(None, dtype=DataType.Int)', 'T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)', 'T2 = fd.ops.mul(T1, S0)', 'fd.add_output(T2)']);
    expect(hashRecords(positional.records())).toBe(hashRecords(keyword.records()));
    expect(positional.inputs()[0]).toMatchObject({ kind: 'scalar', dtype: 'Int' });
    const [out] = await positional.execute([3, Tensor.from(Float32Array.from([1, -2, 0.5]), [3], 'Float')]);
    expect(out?.toArray()).toEqual([3, -6, 1.5]);
  });

  it('a DataType with a value argument is still the value form (define_scalar(2, DataType.Int) is a constant)', () => {
    const fd = definition(['T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)', 'S1 = fd.define_scalar(2, DataType.Int)', 'T2 = fd.ops.mul(T0, S1)', 'fd.add_output(T2)']);
    expect(fd.inputs()).toHaveLength(1);
  });
});

describe('prod(arg, dtype): a DataType second argument reduces every dim', () => {
  it('is the same definition as prod(arg, dtype=…)', () => {
    const positional = definition(['T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)', 'T1 = fd.ops.prod(T0, DataType.Double)', 'fd.add_output(T1)']);
    const keyword = definition(['T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)', 'T1 = fd.ops.prod(T0, dtype=DataType.Double)', 'fd.add_output(T1)']);
    expect(hashRecords(positional.records())).toBe(hashRecords(keyword.records()));
  });

  it.each(casesOf('prod'))('matches torch.prod over every dim in Double (%s)', async (_name, c) => {
    const input = c.inputs[0] as Stored;
    const fd = definition([`T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${input.dtype})`, 'T1 = fd.ops.prod(T0, DataType.Double)', 'fd.add_output(T1)']);
    const [out] = await fd.execute([tensorOf(input)]);
    expectClose(out, c.output, 'prod');
  });

  it('sum, max and min take the same binding', async () => {
    for (const op of ['sum', 'max', 'min']) {
      const fd = definition(['T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)', `T1 = fd.ops.${op}(T0, DataType.Double)`, 'fd.add_output(T1)']);
      const [out] = await fd.execute([Tensor.from(Float32Array.from([1, 5, -2, 4]), [2, 2], 'Float')]);
      expect(out?.dtype, op).toBe('Double');
      expect(out?.toArray(), op).toEqual([{ sum: 8, max: 5, min: -2 }[op]]);
    }
  });
});

describe('expand of a symbolic extent to its own size', () => {
  it('expand(T0, shape=[T0.size(0), 5]) keeps dim 0 and expands the broadcast dim', async () => {
    const fd = definition([
      'T0 = fd.define_tensor(shape=[-1, 1], contiguity=[True, None], dtype=DataType.Float)',
      'S1 = fd.ops.size(T0, 0)',
      'T2 = fd.ops.expand(T0, shape=[S1, 5])',
      'T3 = fd.ops.expand(T2, shape=[T2.size(0), T2.size(1)])',
      'fd.add_output(T3)',
    ]);
    const [out] = await fd.execute([Tensor.from(Float32Array.from([1, 2, 3]), [3, 1], 'Float')]);
    expect([...(out?.sizes ?? [])]).toEqual([3, 5]);
    expect(out?.toArray()).toEqual([1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3]);
  });
});

describe('expand of a non-broadcast dim to a symbolic size (another tensor\'s extent)', () => {
  const body = [
    'T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)',
    'T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)',
    'T2 = fd.ops.expand(T0, shape=[T1.size(0), T1.size(1)])',
    'T3 = fd.ops.add(T2, T1)',
    'fd.add_output(T3)',
  ];
  it('imports (nvFuser takes it) and adds elementwise when the sizes agree, on the reference and the GPU path', async () => {
    const fd = definition(body);
    const inputs = () => [Tensor.from(Float32Array.from([1, 2, 3, 4, 5, 6]), [2, 3], 'Float'), Tensor.from(Float32Array.from([10, 20, 30, 40, 50, 60]), [2, 3], 'Float')];
    const [out] = await fd.execute(inputs());
    expect(out?.toArray()).toEqual([11, 22, 33, 44, 55, 66]);
    const { device } = fakeDevice();
    new FusionExecutorCache(fd.fusionIr(), device, { concurrentSegments: false }).runFusion(inputs());
  });
  it('sizes that disagree at run time are one clear error, as PyTorch\'s expand', async () => {
    const fd = definition(body);
    await expect(fd.execute([Tensor.from(new Float32Array(6), [2, 3], 'Float'), Tensor.from(new Float32Array(8), [2, 4], 'Float')])).rejects.toThrow(/input 1: T1 dim 1 has size 4, but input 0 \(T0\) dim 1, the same dim of the fusion, has size 3/);
  });
  it('a scalar-input size for a non-broadcast dim is checked when evaluated (PyTorch\'s message)', async () => {
    const fd = definition(['T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)', 'S1 = fd.define_scalar(None, dtype=DataType.Int)', 'T2 = fd.ops.expand(T0, shape=[S1, -1])', 'T3 = fd.ops.relu(T2)', 'fd.add_output(T3)']);
    const x = (): Tensor => Tensor.from(Float32Array.from([1, -2, 3, -4, 5, -6]), [2, 3], 'Float');
    const [out] = await fd.execute([x(), 2]);
    expect(out?.toArray()).toEqual([1, 0, 3, 0, 5, 0]);
    await expect(fd.execute([x(), 5])).rejects.toThrow(/the expanded size of the tensor \(5\) must match the existing size \(2\) at non-singleton dimension 0/);
  });
  it('the executor cache checks the same on the GPU path (a kernel iterates the input extent and would ignore S1)', () => {
    const fd = definition(['T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)', 'S1 = fd.define_scalar(None, dtype=DataType.Int)', 'T2 = fd.ops.expand(T0, shape=[S1, -1])', 'T3 = fd.ops.relu(T2)', 'fd.add_output(T3)']);
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(fd.fusionIr(), fake.device);
    const x = Tensor.emptyDevice(fake.device, 'Float', [2, 3]);
    expect(() => cache.runFusion([x, 5])).toThrow(/the expanded size of the tensor \(5\) must match the existing size \(2\) at non-singleton dimension 0/);
    expect(fake.launches.length).toBe(0);
    cache.runFusion([x, 2]).forEach((t) => t.dispose());
    expect(fake.launches.length).toBeGreaterThan(0);
  });
  it('a constant size that differs is still refused when defined', () => {
    expect(() => definition(['T0 = fd.define_tensor(shape=[3, -1], contiguity=[True, True], dtype=DataType.Float)', 'T1 = fd.ops.expand(T0, shape=[4, -1])', 'fd.add_output(T1)'])).toThrow(/not a broadcast and cannot be expanded to 4/);
  });
});

describe(`rsqrt of complex tensors against PyTorch ${fixture.torch}`, () => {
  it.each(casesOf('rsqrt'))('%s', async (_name, c) => {
    const input = c.inputs[0] as Stored;
    const fd = definition([`T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${input.dtype})`, 'T1 = fd.ops.rsqrt(T0)', 'fd.add_output(T1)']);
    const [out] = await fd.execute([tensorOf(input)]);
    expectClose(out, c.output, 'rsqrt');
  });
});

describe(`embedding_fwd with max_norm against F.embedding (PyTorch ${fixture.torch})`, () => {
  it.each(casesOf('embedding_max_norm'))('%s', async (_name, c) => {
    const [idx, weight] = c.inputs as [Stored, Stored];
    const args = c.args as { max_norm: number; norm_type: number };
    const fd = definition([
      'T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int)',
      `T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${weight.dtype})`,
      `S2 = fd.define_scalar(${args.max_norm.toFixed(1)}, dtype=DataType.Double)`,
      `S3 = fd.define_scalar(${args.norm_type.toFixed(1)}, dtype=DataType.Double)`,
      'T4 = fd.ops.embedding_fwd(T0, T1, None, S2, S3, False, False)',
      'fd.add_output(T4)',
    ]);
    const [out] = await fd.execute([tensorOf(idx), tensorOf(weight)]);
    expectClose(out, c.output, 'embedding_fwd');
  });

  // nvFuser takes norm_type as a fusion input too (its tests pass it at execute): the same rows
  // against PyTorch with norm_type a symbolic scalar given at run time.
  it.each(casesOf('embedding_max_norm'))('norm_type given at run time: %s', async (_name, c) => {
    const [idx, weight] = c.inputs as [Stored, Stored];
    const args = c.args as { max_norm: number; norm_type: number };
    const fd = definition([
      'T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int)',
      `T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${weight.dtype})`,
      'S2 = fd.define_scalar(None, dtype=DataType.Double)',
      'S3 = fd.define_scalar(None, dtype=DataType.Double)',
      'T4 = fd.ops.embedding_fwd(T0, T1, None, S2, S3, False, False)',
      'fd.add_output(T4)',
    ]);
    const [out] = await fd.execute([tensorOf(idx), tensorOf(weight), args.max_norm, args.norm_type]);
    expectClose(out, c.output, 'embedding_fwd');
  });

  it('a run-time norm_type of inf / -inf / 0 selects the max / min / nonzero-count norm; the GPU path plans it', async () => {
    // rows [3, -4] (max 4, min 3, 2 nonzero) and [0.5, 0] (max 0.5, min 0, 1 nonzero), max_norm 1.5
    const weight: Stored = { shape: [2, 2], dtype: 'Double', values: [3, -4, 0.5, 0] };
    const idx: Stored = { shape: [1, 2], dtype: 'Int', values: [0, 1] };
    const fd = definition([
      'T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int)',
      'T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Double)',
      'S2 = fd.define_scalar(None, dtype=DataType.Double)',
      'T3 = fd.ops.embedding_fwd(T0, T1, None, 1.5, S2, False, False)',
      'fd.add_output(T3)',
    ]);
    const renorm = (row: number[], norm: number) => row.map((v) => (norm > 1.5 ? (v * 1.5) / (norm + 1e-7) : v));
    for (const [p, n0, n1] of [[Infinity, 4, 0.5], [-Infinity, 3, 0], [0, 2, 1]] as const) {
      const [out] = await fd.execute([tensorOf(idx), tensorOf(weight), p]);
      const want = [...renorm([3, -4], n0), ...renorm([0.5, 0], n1)];
      expectClose(out, { shape: [1, 2, 2], dtype: 'Double', values: want }, `norm_type ${p}`);
    }
    // the GPU path plans and launches it (fake H100: compiles, no values)
    const { device } = fakeDevice();
    new FusionExecutorCache(fd.fusionIr(), device, { concurrentSegments: false }).runFusion([tensorOf(idx), tensorOf(weight), 2.0]);
  });
});

describe(`pad and cat along a broadcast (size-1 or expanded) dim against PyTorch ${fixture.torch}`, () => {
  const x = 'T0 = fd.define_tensor(shape=[-1, 1], contiguity=[True, None], dtype=DataType.Float)';
  const y = 'T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)';
  const run = async (body: string[], inputs: Tensor[], gpuPlans = true): Promise<Tensor | undefined> => {
    const fd = definition(body);
    const [out] = await fd.execute(inputs);
    const { device } = fakeDevice();
    // The GPU path plans it: no PadOp / CatOp resizes a size-1 broadcast ID any more.
    if (gpuPlans) new FusionExecutorCache(fd.fusionIr(), device, { concurrentSegments: false }).runFusion(inputs);
    return out;
  };
  it.each(casesOf('pad_broadcast'))('F.pad %s', async (_name, c) => {
    const args = c.args as unknown as { widths: number[]; value: number };
    const out = await run([x, `T2 = fd.ops.pad(T0, [${args.widths.join(', ')}], ${args.value.toFixed(1)})`, 'fd.add_output(T2)'], [tensorOf(c.inputs[0] as Stored)]);
    expectClose(out, c.output, 'pad');
  });
  // An expanded dim keeps its PadOp: right on the reference, still refused by the GPU schedulers (open).
  it.each(casesOf('pad_expanded'))('F.pad of an expanded dim, on the reference %s', async (_name, c) => {
    const out = await run([x, 'T2 = fd.ops.expand(T0, shape=[T0.size(0), 4])', 'T3 = fd.ops.pad(T2, [1, 1], 0.0)', 'fd.add_output(T3)'], [tensorOf(c.inputs[0] as Stored)], false);
    expectClose(out, c.output, 'pad');
  });
  it.each(casesOf('cat_broadcast'))('torch.cat %s', async (_name, c) => {
    const order = (c.args as { order: string }).order === 'xy' ? 'T0, T1' : 'T1, T0';
    const out = await run([x, y, `T2 = fd.ops.cat([${order}], dim=1)`, 'fd.add_output(T2)'], c.inputs.map(tensorOf));
    expectClose(out, c.output, 'cat');
  });
});

describe(`pad with widths known only at run time (scalar inputs) against PyTorch ${fixture.torch}`, () => {
  it.each(casesOf('pad_runtime'))('F.pad %s', async (_name, c) => {
    const widths = (c.args as unknown as { widths: number[] }).widths;
    const names = widths.map((_, i) => `S${i + 1}`);
    const fd = definition([
      'T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)',
      ...names.map((n) => `${n} = fd.define_scalar(None, dtype=DataType.Int)`),
      `T9 = fd.ops.pad(T0, [${names.join(', ')}], 2.5)`,
      'fd.add_output(T9)',
    ]);
    const inputs = [tensorOf(c.inputs[0] as Stored), ...widths];
    const [out] = await fd.execute(inputs);
    expectClose(out, c.output, 'pad');
    const { device } = fakeDevice();
    const cache = new FusionExecutorCache(fd.fusionIr(), device, { concurrentSegments: false });
    cache.runFusion(inputs);
    expect(cache.lastPlan()?.segments.some((s) => s.kind === 'kernel')).toBe(true);
  });
});

describe('the GPU path plans, lowers and emits these definitions (fake H100: no kernel runs)', () => {
  const cases: [string, string[], () => Tensor[]][] = [
    [
      'expand of a symbolic extent to itself',
      ['T0 = fd.define_tensor(shape=[-1, 1], contiguity=[True, None], dtype=DataType.Float)', 'T2 = fd.ops.expand(T0, shape=[T0.size(0), 5])', 'T3 = fd.ops.expand(T2, shape=[T2.size(0), T2.size(1)])', 'T4 = fd.ops.relu(T3)', 'fd.add_output(T4)'],
      () => [Tensor.from(Float32Array.from([1, 2, 3]), [3, 1], 'Float')],
    ],
    [
      'rsqrt of a complex tensor',
      ['T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.ComplexFloat)', 'T1 = fd.ops.rsqrt(T0)', 'fd.add_output(T1)'],
      () => [Tensor.fromComplexInterleaved(Float32Array.from([1, 2, -4, 0]), [2], 'ComplexFloat')],
    ],
    [
      'embedding_fwd with max_norm',
      [
        'T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)',
        'T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)',
        'T2 = fd.ops.embedding_fwd(T0, T1, None, 1.5, 2.0, False, False)',
        'fd.add_output(T2)',
      ],
      () => [Tensor.fromHost(HostTensor.fromValues('Int', [3], [1n, 0n, 1n])), Tensor.from(Float32Array.from([3, 4, 0.1, 0.2]), [2, 2], 'Float')],
    ],
  ];
  it.each(cases)('%s', (name, body, inputs) => {
    const fd = definition(body);
    const { device, sources } = fakeDevice();
    const cache = new FusionExecutorCache(fd.fusionIr(), device, { concurrentSegments: false });
    cache.runFusion(inputs());
    expect(cache.lastPlan(), name).not.toBeNull();
    const code = [...sources.values()].join('\n');
    if (name.startsWith('rsqrt')) expect(code).toContain('nvf_reciprocal(nvf_sqrt(');
  });
});
