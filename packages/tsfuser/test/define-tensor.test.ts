// define_tensor exactly as nvFuser's frontend: the shape/contiguity/stride_order form (contiguity
// per allocation position, None for broadcast and expanded dims), the sizes/strides form
// (computeTensorDescriptor, static_sizes), zero-size dims, and the execute-time checks.
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { DataType, DefinitionError, FusionCache, FusionDefinition, InputMismatchError, Tensor, importPythonDefinition, logicalContiguity, printPythonDefinition } from '../src/index.js';
import { Random } from '../src/io/random.js';

function recordOf(options: Parameters<FusionDefinition['defineTensor']>[0]): unknown[] {
  const fd = new FusionDefinition({ cache: new FusionCache() });
  fd.defineTensor(options);
  return [...(fd.records()[0]?.args ?? [])];
}

/** A host tensor over `storage` viewed with sizes/strides (values 0, 1, 2 … in storage order). */
function strided(sizes: number[], strides: number[], storageSize: number): Tensor {
  const data = Float32Array.from({ length: storageSize }, (_, i) => i);
  return Tensor.fromHost(new HostTensor('Float', sizes, strides, data));
}

async function rejection(fd: FusionDefinition, inputs: Tensor[]): Promise<InputMismatchError> {
  try {
    await fd.execute(inputs, { backend: 'reference' });
  } catch (e) {
    if (e instanceof InputMismatchError) return e;
    throw e;
  }
  throw new Error('expected an InputMismatchError');
}

describe('define_tensor(sizes, strides): nvFuser computeTensorDescriptor', () => {
  const cases: { sizes: number[]; strides: number[]; shape: number[]; contiguity: (boolean | null)[]; order: number[] }[] = [
    { sizes: [2, 3, 4], strides: [12, 4, 1], shape: [-1, -1, -1], contiguity: [true, true, true], order: [2, 1, 0] },
    { sizes: [3, 2], strides: [1, 3], shape: [-1, -1], contiguity: [true, true], order: [0, 1] },
    { sizes: [2, 3], strides: [6, 1], shape: [-1, -1], contiguity: [false, true], order: [1, 0] },
    // A stride-0 dim of size 4 is an expanded broadcast: None, shape -1.
    { sizes: [4, 5], strides: [0, 1], shape: [-1, -1], contiguity: [null, true], order: [1, 0] },
    // The size-1 dim is skipped when checking the dim outside it.
    { sizes: [2, 1, 3], strides: [3, 3, 1], shape: [-1, 1, -1], contiguity: [true, null, true], order: [2, 1, 0] },
    { sizes: [0, 3], strides: [3, 1], shape: [-1, -1], contiguity: [true, true], order: [1, 0] },
  ];
  for (const c of cases) {
    it(`sizes [${c.sizes.join(', ')}] strides [${c.strides.join(', ')}]`, () => {
      expect(recordOf({ sizes: c.sizes, strides: c.strides })).toEqual([c.shape, c.contiguity, 'Float', false, c.order]);
    });
  }

  it('keeps the sizes with staticSizes and refuses negative strides', () => {
    expect(recordOf({ sizes: [2, 1, 3], strides: [3, 3, 1], staticSizes: true })[0]).toEqual([2, 1, 3]);
    expect(() => recordOf({ sizes: [2, 3], strides: [-3, 1] })).toThrow(/strides\[0\] is -3; negative strides/);
  });
});

describe('define_tensor(shape, contiguity, stride_order)', () => {
  it('reads contiguity per allocation position when a stride order is given', async () => {
    // stride_order [0, 1]: dim 0 is innermost; contiguity[0] is dim 1, contiguity[1] is dim 0.
    const fd = FusionDefinition.build((f) => {
      const t = f.defineTensor({ shape: [-1, -1], contiguity: [true, true], strideOrder: [0, 1] });
      f.addOutput(f.ops.neg(t));
    }, { cache: new FusionCache() });
    const [out] = await fd.execute([strided([3, 2], [1, 3], 6)], { backend: 'reference' });
    expect(out?.toArray()).toEqual([-0, -3, -1, -4, -2, -5]);
    const e = await rejection(fd, [strided([3, 2], [2, 1], 6)]);
    expect(e.message).toMatch(/^input 0: T0 dim 0 is declared contiguous \(contiguity\[1\]\), so its stride must be 1, got 2/);
  });

  it('takes None on a dim whose shape is not 1 as an expanded broadcast (stride 0)', async () => {
    const fd = FusionDefinition.build((f) => {
      const t0 = f.defineTensor({ shape: [-1, -1], contiguity: [null, true] });
      const t1 = f.defineTensor({ shape: [-1, -1], contiguity: [true, true] });
      f.addOutput(f.ops.add(t0, t1));
    }, { cache: new FusionCache() });
    const expanded = strided([2, 3], [0, 1], 3);
    const dense = strided([2, 3], [3, 1], 6);
    const [out] = await fd.execute([expanded, dense], { backend: 'reference' });
    expect(out?.toArray()).toEqual([0, 2, 4, 3, 5, 7]);
    const e = await rejection(fd, [dense, dense]);
    expect(e.message).toBe('input 0: T0 dim 0 is declared expanded (contiguity None), so its stride must be 0, got 3 (strides [3, 1])');
  });

  it('gives a bool contiguity to every dim whose shape is not 1, in allocation order', () => {
    expect(recordOf({ shape: [-1, 1, -1], contiguity: true, strideOrder: [0, 2, 1] })).toEqual([[-1, 1, -1], [null, true, true], 'Float', false, [0, 2, 1]]);
  });

  it('wraps negative stride_order entries and keeps the identity order as given', () => {
    expect(recordOf({ shape: [-1, -1], contiguity: [true, true], strideOrder: [-1, 0] })[4]).toEqual([1, 0]);
  });

  it('refuses what nvFuser refuses, with one message each', () => {
    const bad = (o: Parameters<FusionDefinition['defineTensor']>[0], re: RegExp): void => {
      expect(() => recordOf(o)).toThrow(DefinitionError);
      expect(() => recordOf(o)).toThrow(re);
    };
    bad({ shape: [-1, 1], contiguity: [true, true] }, /contiguity\[1\] \(dim 1, shape 1\) is true but a broadcast dim has no stride: it must be None/);
    bad({ shape: [-1, -1], contiguity: [true, true], strideOrder: [1, 1] }, /stride_order \[1, 1\] has duplicated entries/);
    bad({ shape: [-1, -1], contiguity: [true, true], strideOrder: [2, 0] }, /stride_order\[0\] is 2; expected an integer in \[-2, 2\)/);
    bad({ shape: [-1], contiguity: [true], isCpu: true }, /is_cpu=True is only supported for 0-dim/);
    bad({ shape: [-3] }, /shape\[0\] is -3/);
  });

  it('runs zero-size inputs and static zero dims', async () => {
    const fd = FusionDefinition.build((f) => {
      const t = f.defineTensor({ shape: [0, -1], contiguity: [true, true] });
      f.addOutput(f.ops.sum(f.ops.exp(t), [0]));
    }, { cache: new FusionCache() });
    const [out] = await fd.execute([Tensor.from(new Float32Array(0), [0, 3], 'Float')], { backend: 'reference' });
    expect(out?.toArray()).toEqual([0, 0, 0]);
    expect((await rejection(fd, [Tensor.from(new Float32Array(3), [1, 3], 'Float')])).message).toMatch(/dim 0 must have size 0, got size 1/);
  });
});

describe('define_tensor as nvFuser prints it', () => {
  it('imports a printed definition with expanded and stride-ordered inputs, runs it, and prints it back the same', async () => {
    const text = [
      'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :',
      '    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, None, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 0, 1])',
      '    T1 = fd.define_tensor(shape=[1, -1, -1], contiguity=[None, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])',
      '    T2 = fd.ops.mul(T0, T1)',
      '    fd.add_output(T2)',
      '',
    ].join('\n');
    const fd = importPythonDefinition(text, { cache: new FusionCache() });
    expect(printPythonDefinition(fd.records())).toBe(text);
    // T0: allocation order dim 0, dim 2, dim 1; dim 2 (contiguity[1]) is expanded, dim 1 innermost.
    const t0 = strided([2, 3, 4], [3, 1, 0], 6);
    const t1 = strided([1, 3, 4], [12, 4, 1], 12);
    const [out] = await fd.execute([t0, t1], { backend: 'reference' });
    const expected = Array.from({ length: 24 }, (_, i) => {
      const [a, b, c] = [Math.floor(i / 12), Math.floor(i / 4) % 3, i % 4];
      return (a * 3 + b) * (b * 4 + c);
    });
    expect(out?.toArray()).toEqual(expected);
  });

  it('hashes nvFuser-equal definitions equally and different contiguity differently', () => {
    const a = recordOf({ shape: [-1, -1], contiguity: true, dtype: DataType.Half });
    const b = recordOf({ shape: [-1, -1], contiguity: [true, true], dtype: DataType.Half });
    const c = recordOf({ shape: [-1, -1], contiguity: [null, true], dtype: DataType.Half });
    expect(a).toEqual(b);
    expect(c).not.toEqual(a);
  });
});

describe('define_tensor(sizes, strides) property', () => {
  it('every strided tensor passes the input check of the descriptor computed from it; a stride changed on a contiguous dim fails it', async () => {
    const seed = Number(process.env.TSFUSER_SEED ?? 1907);
    const rng = new Random(seed);
    for (let round = 0; round < 200; round += 1) {
      const rank = rng.int(1, 5);
      const sizes = Array.from({ length: rank }, () => [0, 1, 1, 2, 3, 4][rng.int(0, 6)] as number);
      // A random permutation as the memory order, random gaps, some dims expanded (stride 0).
      const order = [...sizes.keys()].sort(() => rng.uniform() - 0.5);
      const strides = new Array<number>(rank).fill(0);
      let acc = 1;
      for (let k = rank - 1; k >= 0; k -= 1) {
        const d = order[k] as number;
        if (rng.uniform() < 0.15) continue; // expanded: stride 0
        strides[d] = acc;
        acc *= Math.max(1, sizes[d] as number) + (rng.uniform() < 0.3 ? 1 : 0);
      }
      const span = sizes.reduce((a, s, d) => a + Math.max(0, s - 1) * (strides[d] as number), 1);
      const input = strided(sizes, strides, span);
      const fd = FusionDefinition.build((f) => {
        f.addOutput(f.ops.abs(f.defineTensor({ sizes, strides })));
      }, { cache: new FusionCache() });
      const where = `seed ${seed} round ${round}: sizes [${sizes.join(', ')}] strides [${strides.join(', ')}]`;
      try {
        const [out] = await fd.execute([input], { backend: 'reference' });
        expect(out?.toArray(), where).toEqual(input.toArray().map((v) => Math.abs(Number(v))));
      } catch (error) {
        throw new Error(`${where}: ${error instanceof Error ? error.message : String(error)}`);
      }
      const spec = fd.inputs()[0];
      if (spec?.kind !== 'tensor') throw new Error(where);
      const contiguous = logicalContiguity(spec.spec).findIndex((c, d) => c === true && (sizes[d] as number) > 1);
      if (contiguous < 0 || sizes.includes(0)) continue;
      const bumped = strides.map((st, d) => (d === contiguous ? st + 1 : st));
      const bumpedSpan = sizes.reduce((a, sz, d) => a + Math.max(0, sz - 1) * (bumped[d] as number), 1);
      await expect(fd.execute([strided(sizes, bumped, bumpedSpan)], { backend: 'reference' }), `${where} bumped dim ${contiguous}`).rejects.toThrow(InputMismatchError);
    }
  });
});
