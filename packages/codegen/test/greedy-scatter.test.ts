// The greedy scatter kernel on the host: its parameters, the segmentation around it (a scatter
// segment of its own between pointwise segments), the host model of the kernel (scatter-model.ts,
// atomics in a random order) against the reference evaluator on the fixtures and on random
// cases (seed printed; TSFUSER_SEED replays) with each segment of the plan run in order (greedy
// scatter segments through the model, the others through the reference), out-of-range indices
// (the kernel traps), the emitted CUDA's shape and the refusals.
import { scatterScalarArgument, scatterScalarLiteral } from '../src/emit/greedy/scatter-kernel.js';
import { evaluate, Fusion, HostTensor, indexPutAccumulate, makeTensor, scatter, type EvalValue, type Val } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, GreedyScheduler, makeRuntimeInfo, segmentFusion, type GreedyParams } from '@tsfuser/scheduler';
import { randomScatterCase, scatterCases, scatterInputs, scatterMismatch, seededRandom, testSeed, type ScatterCase } from '@tsfuser/test-support';
import { describe, expect, it } from 'vitest';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { runScatterModel } from './scatter-model.js';

const registry = defaultSchedulerRegistry();

function sizesOf(inputs: readonly HostTensor[]): { sizes: number[] }[] {
  return inputs.map((t) => ({ sizes: [...t.sizes] }));
}

/** Runs the segments of `c` in order: greedy scatter segments through the kernel model, the rest through the reference. */
function runSegmented(c: ScatterCase, inputs: readonly HostTensor[], next: () => number): { outputs: HostTensor[]; kinds: string[] } {
  const info = makeRuntimeInfo(c.fusion, sizesOf(inputs));
  const sf = segmentFusion(c.fusion, info, registry);
  const values = new Map<Val, EvalValue>();
  c.fusion.inputs.forEach((v, i) => values.set(v, inputs[i] as HostTensor));
  const kinds: string[] = [];
  for (const g of sf.groups) {
    const groupInputs = g.inputs.map((v) => values.get(v) as EvalValue);
    kinds.push(g.schedulerType);
    let outs: EvalValue[];
    if (g.schedulerType === 'greedy') {
      const gi = makeRuntimeInfo(g.fusion, groupInputs.map((x) => (x instanceof HostTensor ? { sizes: [...x.sizes] } : { value: x as number })));
      const p = new GreedyScheduler().computeHeuristics(g.fusion, gi);
      outs = [runScatterModel(p, g.fusion, groupInputs as (HostTensor | number)[], next)];
    } else {
      outs = evaluate(g.fusion, groupInputs);
    }
    g.outputs.forEach((v, k) => values.set(v, outs[k] as EvalValue));
  }
  return { outputs: c.fusion.outputs.map((v) => values.get(v) as HostTensor), kinds };
}

function check(c: ScatterCase, seed: number): string | null {
  const next = seededRandom(seed);
  const inputs = scatterInputs(c, next);
  const want = evaluate(c.fusion, inputs) as HostTensor[];
  const { outputs } = runSegmented(c, inputs, next);
  return scatterMismatch(c, inputs, outputs, want);
}

function paramsOf(c: ScatterCase): GreedyParams {
  const info = makeRuntimeInfo(c.fusion, sizesOf(scatterInputs(c, seededRandom(1))));
  const p = registry.pick(c.fusion, info).scheduler.computeHeuristics(c.fusion, info);
  if (p.schedulerType !== 'greedy') throw new Error(`${c.name}: expected the greedy scheduler, got ${p.schedulerType}`);
  return p;
}

describe('greedy scatter kernel parameters and segments', () => {
  it('a lone scatter / index_put_accumulate is one greedy segment: a thread per update point', () => {
    const byName = new Map(scatterCases(37, 131).map((c) => [c.name, c]));
    const s = paramsOf(byName.get('scatter_dim1_Float') as ScatterCase);
    expect(s).toMatchObject({ op: 'scatter', dim: 1, rows: 37 * 43, kernel: { kind: 'scatter', accumulate: false, threads: 256 }, lparams: { gdimx: Math.ceil((37 * 43) / 256), bdimx: 256 } });
    const a = paramsOf(byName.get('index_put_accumulate_BFloat16') as ScatterCase);
    expect(a).toMatchObject({ op: 'index_put_accumulate', dim: 0, rows: 74 * 131, kernel: { kind: 'scatter', accumulate: true } });
  });

  it('between pointwise ops: pointwise, greedy (the scatter), pointwise', () => {
    for (const name of ['pointwise_scatter_pointwise_Float', 'index_put_accumulate_cast_value_then_scale_BFloat16']) {
      const c = scatterCases(8, 12).find((x) => x.name === name) as ScatterCase;
      const { kinds } = runSegmented(c, scatterInputs(c, seededRandom(3)), seededRandom(4));
      expect(kinds.filter((k) => k === 'greedy')).toHaveLength(1);
      expect(kinds.length).toBeGreaterThanOrEqual(2);
      expect(kinds.every((k) => k === 'greedy' || k === 'pointwise')).toBe(true);
    }
  });

  it('refuses what the kernel cannot do, with a reason', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Bool' });
    const i = makeTensor(f, { shape: [-1], dtype: 'Int' });
    const v = makeTensor(f, { shape: [-1, -1], dtype: 'Bool' });
    for (const t of [x, i, v]) f.addInput(t);
    f.addOutput(indexPutAccumulate(x, i, v));
    expect(new GreedyScheduler().canSchedule(f, makeRuntimeInfo(f, [{ sizes: [4, 3] }, { sizes: [2] }, { sizes: [2, 3] }]))).toEqual({
      ok: false,
      reason: 'index_put_accumulate producing T3: Bool is not supported by the scatter kernel (Float, Double, Half, BFloat16, Int32, Int)',
    });
    const g = new Fusion();
    const s = makeTensor(g, { shape: [-1, -1] });
    const j = makeTensor(g, { shape: [-1, -1], dtype: 'Int' });
    g.addInput(s);
    g.addInput(j);
    g.addOutput(scatter(s, 1, j, 2.0));
    expect(new GreedyScheduler().canSchedule(g, makeRuntimeInfo(g, [{ sizes: [4, 3] }, { sizes: [5, 2] }]))).toEqual({
      ok: false,
      reason: 'scatter producing T2: index sizes [5, 2] do not fit [4, 3] at dim 0',
    });
  });
});

describe('greedy scatter kernel model matches the reference evaluator', () => {
  it('every fixture at two sizes', () => {
    const failures: string[] = [];
    for (const [r, k] of [[5, 7], [37, 131]] as const) {
      scatterCases(r, k).forEach((c, i) => {
        const m = check(c, 1000 + i);
        if (m !== null) failures.push(`${c.name} [${r}, ${k}]: ${m}`);
      });
    }
    expect(failures).toEqual([]);
  });

  it('random scatter fusions', () => {
    const seed = testSeed();
    const next = seededRandom(seed);
    const failures: string[] = [];
    for (let k = 0; k < 60; k += 1) {
      const c = randomScatterCase(next, k);
      const m = check(c, Math.floor(next() * 2 ** 31));
      if (m !== null) failures.push(`${c.name}: ${m}`);
    }
    expect(failures, `seed ${seed} (TSFUSER_SEED=${seed} replays)`).toEqual([]);
  });

  it('an index outside [0, size) traps in the kernel (and is an error on the reference backend)', () => {
    for (const name of ['scatter_dim1_Float', 'index_put_accumulate_Float']) {
      const c = scatterCases(6, 9).find((x) => x.name === name) as ScatterCase;
      const inputs = scatterInputs(c, seededRandom(5), true);
      expect(() => runSegmented(c, inputs, seededRandom(6))).toThrow(/^trap: .* index \d+ outside \[0, \d+\)/);
      expect(() => evaluate(c.fusion, inputs)).toThrow(/is out of bounds for dim/);
    }
  });
});

describe('greedy scatter kernel CUDA', () => {
  it('stores for scatter, nvfAtomicAdd for index_put_accumulate, a trap on a bad index', () => {
    const byName = new Map(scatterCases(8, 12).map((c) => [c.name, c]));
    const compile = (name: string): string => {
      const c = byName.get(name) as ScatterCase;
      return compileFusion(c.fusion, makeRuntimeInfo(c.fusion, sizesOf(scatterInputs(c, seededRandom(1))))).dumps.cuda;
    };
    const s = compile('scatter_dim1_Float');
    expect(s).toContain('__trap(); // scatter: index out of bounds');
    expect(s).toMatch(/T\d+\[nvf_out\] = T\d+\[/);
    expect(s).not.toContain('nvfAtomicAdd');
    expect(compile('scatter_scalar_src_Float')).toMatch(/\[nvf_out\] = \(float\)\(5\.0+e-1\);/);
    const a = compile('index_put_accumulate_BFloat16');
    expect(a).toMatch(/nvfAtomicAdd\(&T\d+\[nvf_out\], T\d+\[/);
    expect(a).toContain('Tensor<__bfloat, 2>');
  });
});

describe('scatter scalar literals', () => {
  it('a float constant into an integer output converts toward zero, as C++ and PyTorch casts do', () => {
    expect(scatterScalarLiteral(1.25, 'Int')).toBe('(long long)1LL');
    expect(scatterScalarLiteral(-1.75, 'Int')).toBe('(long long)-1LL');
    expect(scatterScalarLiteral(7n, 'Int')).toBe('(long long)7LL');
    expect(scatterScalarLiteral(1.25, 'Int32')).toBe('(int)1');
    expect(scatterScalarLiteral(-2.5, 'Int32')).toBe('(int)-2');
  });
});

/** scatter(x, 0, index, S) with S a Double scalar input and x Float (nvFuser's test_scatter_scalar_src). */
function scalarInputSourceFusion(dtype: 'Float' | 'Half' | 'Int'): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype });
  const i = makeTensor(f, { shape: [-1, -1], dtype: 'Int' });
  const s = f.newSymbolicScalar('Double');
  for (const v of [x, i, s]) f.addInput(v);
  f.addOutput(scatter(x, 0, i, s));
  return f;
}

describe('a scatter of a scalar input of another dtype (test_scatter_scalar_src)', () => {
  const rows = 16;
  const cols = 24;
  /** Distinct row indices per column (a random permutation's first k), as topk(x, k, dim=0) gives. */
  function indexTensor(next: () => number, k: number): HostTensor {
    const t = HostTensor.empty('Int', [k, cols]);
    for (let c = 0; c < cols; c += 1) {
      const perm = [...Array(rows).keys()];
      for (let j = rows - 1; j > 0; j -= 1) {
        const r = Math.floor(next() * (j + 1));
        [perm[j], perm[r]] = [perm[r] as number, perm[j] as number];
      }
      for (let r = 0; r < k; r += 1) t.setFlat(r * cols + c, BigInt(perm[r] as number));
    }
    return t;
  }

  it('is one greedy segment whose kernel converts the argument, and the model matches the reference', () => {
    const seed = testSeed();
    const next = seededRandom(seed);
    for (const dtype of ['Float', 'Half', 'Int'] as const) {
      const f = scalarInputSourceFusion(dtype);
      const x = HostTensor.empty(dtype, [rows, cols]);
      for (let e = 0; e < x.numel; e += 1) x.setFlat(e, dtype === 'Int' ? BigInt(Math.floor(next() * 100)) : next() * 4 - 2);
      const index = indexTensor(next, 5);
      const src = -1.75;
      const info = makeRuntimeInfo(f, [{ sizes: [rows, cols] }, { sizes: [5, cols] }, null]);
      expect(segmentFusion(f, info, registry).groups.map((g) => g.schedulerType), dtype).toEqual(['greedy']);
      const p = new GreedyScheduler().computeHeuristics(f, info);
      const got = runScatterModel(p, f, [x, index, src], next);
      const want = evaluate(f, [x, index, src])[0] as HostTensor;
      const bad = [...Array(want.numel).keys()].filter((e) => Number(got.get(e)) !== Number(want.get(e)));
      expect(bad, `${dtype} (seed ${seed}, TSFUSER_SEED replays)`).toEqual([]);
      // The scattered value is the src as the output dtype: -1.75 as Float / Half, toward zero as Int.
      expect(Number(want.get(Number(index.get(0)) * cols)), dtype).toBe(dtype === 'Int' ? -1 : -1.75);
    }
    const cuda = compileFusion(scalarInputSourceFusion('Float'), makeRuntimeInfo(scalarInputSourceFusion('Float'), [{ sizes: [rows, cols] }, { sizes: [5, cols] }, null])).dumps.cuda;
    expect(cuda).toMatch(/T\d+\[nvf_out\] = \(float\)\(d\d+\);/);
  });

  it('argument conversions by output dtype', () => {
    expect(scatterScalarArgument('d2', 'Double', 'Double')).toBe('d2');
    expect(scatterScalarArgument('d2', 'Double', 'Half')).toBe('__double2half((double)(d2))');
    expect(scatterScalarArgument('d2', 'Double', 'Int')).toBe('(long long)(d2)');
    expect(scatterScalarArgument('i2', 'Int', 'Bool')).toBe('(i2 != 0)');
  });

  it.skipIf(!hasNvcc)('the kernels compile with nvcc -cubin -arch=sm_90', async () => {
    const kernels: CompiledKernel[] = (['Float', 'Half', 'Int'] as const).map((dtype, k) => {
      const f = scalarInputSourceFusion(dtype);
      return compileFusion(f, makeRuntimeInfo(f, [{ sizes: [128, 1024] }, { sizes: [64, 1024] }, null]), { fusionId: 41200 + k });
    });
    await compileKernelsWithNvcc(kernels, { chunks: 1, label: 'scatter-scalar-input', cubin: true });
  }, 120_000);
});
