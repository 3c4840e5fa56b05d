// Random numbers through the whole codegen path: the pointwise scheduler with several
// schedules (1-D and 2-D, block widths, unroll factors, vectorized or not), lowering to `Rng`
// statements with the logical linear index, and the kernel simulator — bit-exact against the
// reference evaluator. Also the emitted CUDA text.
import { add, broadcast, dropout, evaluate, Fusion, HostTensor, makeTensor, normal, rand, randn, uniform } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo, PointwiseScheduler, SchedulerRegistry, type PointwiseOverrides } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { defaultSchedulerRegistry } from '@tsfuser/scheduler';
import { compileFusion, lowerFusion } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';
import { dropoutResidualLayerNorm, rngCases, type RngCase } from '@tsfuser/test-support';

/** Seeded inputs (mulberry32) so a failure names the data. */
function inputsFor(c: RngCase, seed: number): HostTensor[] {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return c.inputSizes.map((s) => HostTensor.fromValues(c.inputDtype, s, Array.from({ length: s.reduce((x, y) => x * y, 1) }, () => next() * 4 - 2)));
}

interface Variant {
  name: string;
  overrides: PointwiseOverrides;
  alignment?: number;
}

const VARIANTS: Variant[] = [
  { name: 'heuristic', overrides: {} },
  { name: '1D bdimx=128 unroll=1', overrides: { breakPoint: 0, bdimx: 128, unroll: 1 } },
  { name: '1D bdimx=64 unroll=4', overrides: { breakPoint: 0, bdimx: 64, unroll: 4 } },
  { name: '2D bdimx=32 unroll=2', overrides: { breakPoint: 1, bdimx: 32, unroll: 2 } },
  { name: '2D bdimx=128 unroll=1 unaligned', overrides: { breakPoint: 1, bdimx: 128, unroll: 1 }, alignment: 2 },
];

function simulate(fusion: Fusion, inputs: HostTensor[], v: Variant): { got: HostTensor[]; vectorize: number; cuda: string } {
  const scheduler = new PointwiseScheduler(v.overrides);
  const info = makeRuntimeInfo(fusion, inputs.map((t) => ({ sizes: [...t.sizes], ...(v.alignment === undefined ? {} : { alignment: v.alignment }) })));
  const compiled = compileFusion(fusion, info, { registry: new SchedulerRegistry([scheduler]) });
  const scheduled = scheduler.schedule(fusion.clone().fusion, compiled.params);
  const b = compiled.launch.block;
  const kernel = lowerFusion(scheduled, { kernelName: compiled.kernelName, maxThreadsPerBlock: b[0] * b[1] * b[2] });
  const shapes = evaluate(fusion, inputs) as HostTensor[];
  const outs = shapes.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.numel).fill(NaN)));
  const got = simulateKernel(kernel, compiled.launch, [...inputs, ...outs]).slice(inputs.length);
  return { got, vectorize: compiled.vectorizeFactor, cuda: compiled.dumps.cuda };
}

describe('RNG kernels match the reference evaluator bit for bit', () => {
  // [37, 131]: odd sizes, predicated, never vectorized; [64, 1024]: large enough for the
  // heuristic to vectorize by 4 (the unaligned variant then runs scalar).
  const LARGE = new Set(['dropout_Half', 'randn_like_add_Double']);
  for (const [rows, cols] of [[37, 131], [64, 1024]] as const) {
    for (const c of rngCases(rows, cols).filter((x) => rows === 37 || LARGE.has(x.name))) {
      it(`${c.name} [${rows}, ${cols}] under ${VARIANTS.length} schedules`, () => {
        const seed = rows * 1000 + cols;
        const inputs = inputsFor(c, seed);
        const want = (evaluate(c.fusion, inputs) as HostTensor[]).map((t) => t.toNumbers());
        const vectorized = new Set<number>();
        for (const v of VARIANTS) {
          const { got, vectorize } = simulate(c.fusion, inputs, v);
          vectorized.add(vectorize);
          got.forEach((t, o) => {
            const values = t.toNumbers();
            const w = want[o] as number[];
            const bad = values.findIndex((x, i) => !Object.is(x, w[i]));
            expect(bad, `${c.name} ${v.name} (input seed ${seed}) output ${o} element ${bad}: ${values[bad]} vs ${w[bad]}`).toBe(-1);
          });
        }
        if (cols === 1024) expect(vectorized.size, 'both vectorized and scalar schedules ran').toBeGreaterThan(1);
      });
    }
  }
});

describe('random RNG fusions (seeded)', () => {
  /** mulberry32: the same cases for the same seed. */
  function generator(seed: number): (n: number) => number {
    let a = seed >>> 0;
    return (n) => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = Math.imul(a ^ (a >>> 15), a | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n);
    };
  }
  const seed = 8675309;
  it(`rank 1–3, size-1 dims, RNG tensors broadcast into larger ones, every op and dtype (seed ${seed})`, () => {
    const pick = generator(seed);
    const dtypes = ['Float', 'Double', 'Half', 'BFloat16'] as const;
    const covered = new Set<string>();
    for (let k = 0; k < 12; k += 1) {
      const rank = 1 + pick(3);
      const sizes = Array.from({ length: rank }, () => (pick(4) === 0 ? 1 : 1 + pick(40)));
      const dtype = dtypes[pick(4)] as (typeof dtypes)[number];
      const fusion = new Fusion();
      const x = makeTensor(fusion, { shape: sizes.map((n) => (n === 1 ? 1 : -1)), dtype });
      fusion.addInput(x);
      const rng = { rngSeed: pick(1000), rngOffset: pick(10) };
      // The RNG tensor over the inner dims only (broadcast over the outer one) or over all of them.
      const inner = rank > 1 && pick(2) === 0;
      const rngSizes = inner ? sizes.slice(1) : sizes;
      const kind = pick(4);
      const r =
        kind === 0 ? rand(fusion, rngSizes, dtype, rng)
          : kind === 1 ? randn(fusion, rngSizes, dtype, rng)
            : kind === 2 ? uniform(fusion, rngSizes, -1, 4, dtype, rng)
              : normal(fusion, rngSizes, 2, 3, dtype, rng);
      fusion.addOutput(add(x, inner ? broadcast(r, [true, ...rngSizes.map(() => false)]) : r));
      const what = `case ${k} (seed ${seed}): ${dtype} [${sizes.join(', ')}], rng over [${rngSizes.join(', ')}], op ${kind}`;
      const inputs = inputsFor({ name: what, fusion, inputSizes: [sizes], inputDtype: dtype }, seed + k);
      const want = (evaluate(fusion, inputs)[0] as HostTensor).toNumbers();
      // A forced 2-D schedule needs two dims and cannot split a size-1 (broadcast) one.
      const variants = [VARIANTS[0], VARIANTS[2], ...(rank < 2 || sizes.includes(1) ? [] : [VARIANTS[3]])] as Variant[];
      for (const v of variants) {
        const got = (simulate(fusion, inputs, v).got[0] as HostTensor).toNumbers();
        const bad = got.findIndex((g, i) => !Object.is(g, want[i]));
        expect(bad, `${what}, ${v.name}: element ${bad} ${got[bad]} vs ${want[bad]}`).toBe(-1);
        covered.add(v.name);
      }
      if (inner) covered.add('broadcast RNG');
      if (sizes.includes(1)) covered.add('size-1 dim');
      covered.add(`rank ${rank}`);
    }
    for (const what of ['broadcast RNG', 'size-1 dim', 'rank 1', 'rank 3', (VARIANTS[3] as Variant).name]) expect(covered.has(what), `seed ${seed} covers ${what}`).toBe(true);
  });
});

describe('seed and offset as fusion inputs', () => {
  it('kernel scalars carry them; the numbers equal the reference for several seeds and offsets', () => {
    const fusion = new Fusion();
    const x = makeTensor(fusion, { shape: [-1, -1], dtype: 'Half' });
    const seed = fusion.newSymbolicScalar('Int');
    const offset = fusion.newSymbolicScalar('Int');
    fusion.addInput(x);
    fusion.addInput(seed);
    fusion.addInput(offset);
    fusion.addOutput(dropout(x, 0.5, true, { rngSeed: seed, rngOffset: offset }));
    const input = inputsFor({ name: 'x', fusion, inputSizes: [[9, 70]], inputDtype: 'Half' }, 5)[0] as HostTensor;
    const info = makeRuntimeInfo(fusion, [{ sizes: [9, 70] }, null, null]);
    const compiled = compileFusion(fusion, info);
    const scheduled = new PointwiseScheduler().schedule(fusion.clone().fusion, compiled.params);
    const kernel = lowerFusion(scheduled, { kernelName: compiled.kernelName, maxThreadsPerBlock: compiled.launch.block[0] });
    const outputs = new Set<string>();
    for (const [s, o] of [[1, 0], [1, 1], [987654321, 3]] as const) {
      const want = (evaluate(fusion, [input, BigInt(s), BigInt(o)])[0] as HostTensor).toNumbers();
      const out = HostTensor.fromValues('Half', [9, 70], new Array<number>(630).fill(NaN));
      const got = (simulateKernel(kernel, compiled.launch, [input, s, o, out])[1] as HostTensor).toNumbers();
      expect(got, `seed ${s}, offset ${o}`).toEqual(want);
      outputs.add(got.join(','));
    }
    expect(outputs.size).toBe(3);
  });
});

describe('emitted CUDA for random numbers', () => {
  it('declares one Philox cache per thread and calls the helper with linear / 4, linear % 4', () => {
    const c = rngCases(64, 256).find((x) => x.name === 'dropout_Half') as RngCase;
    const { cuda } = simulate(c.fusion, inputsFor(c, 1), VARIANTS[0] as Variant);
    expect(cuda).toContain('NvfRngCache nvf_rng; nvf_rng_cache_init(nvf_rng);');
    expect(cuda).toMatch(/nvf_rng_uniform_half\(nvf_philox_words\(nvf_rng, static_cast<long long>\(24301LL\), static_cast<long long>\(12LL\), static_cast<long long>\(.*\) \/ 4\), static_cast<int>\(.* % 4\)\)/);
    const d = rngCases(4, 4).find((x) => x.name === 'uniform_range_Double') as RngCase;
    expect(simulate(d.fusion, [], VARIANTS[0] as Variant).cuda).toMatch(/nvf_rng_uniform_range_double\(.* \/ 2\), static_cast<int>\(.* % 2\), \(-2\.0+e\+0\), 3\.0+e\+0\);/);
  });
  it('kernels without random numbers do not get the Philox helpers', () => {
    const c = rngCases(4, 4).find((x) => x.name === 'rand_Float') as RngCase;
    const info = makeRuntimeInfo(c.fusion, []);
    expect(compileFusion(c.fusion, info).source).toContain('nvf_philox(');
  });
});

describe('dropout inside a normalization kernel', () => {
  for (const [rows, cols] of [[16, 1024], [7, 300]] as const) {
    it(`dropout + residual + layer_norm [${rows}, ${cols}] bf16 is one inner persistent kernel matching the reference`, () => {
      const fusion = dropoutResidualLayerNorm();
      const inputs = inputsFor({ name: 'ln', fusion, inputSizes: [[rows, cols], [rows, cols]], inputDtype: 'BFloat16' }, rows + cols);
      const info = makeRuntimeInfo(fusion, inputs.map((t) => ({ sizes: [...t.sizes] })));
      const compiled = compileFusion(fusion, info);
      expect(compiled.params.schedulerType).toBe('inner_persistent');
      expect(compiled.dumps.cuda).toContain('nvf_rng_uniform_bfloat(');
      const { scheduler } = defaultSchedulerRegistry().pick(fusion, info);
      const b = compiled.launch.block;
      const kernel = lowerFusion(scheduler.schedule(fusion.clone().fusion, compiled.params), { kernelName: compiled.kernelName, maxThreadsPerBlock: b[0] * b[1] * b[2] });
      const want = (evaluate(fusion, inputs)[0] as HostTensor).toNumbers();
      const out = HostTensor.fromValues('BFloat16', [rows, cols], new Array<number>(rows * cols).fill(NaN));
      const got = (simulateKernel(kernel, compiled.launch, [...inputs, out])[2] as HostTensor).toNumbers();
      // The simulator reduces in another order than the evaluator: one bf16 ulp (2^-7 relative).
      const bad = got.findIndex((v, i) => !(Math.abs(v - (want[i] as number)) <= 2 ** -7 * Math.max(1, Math.abs(want[i] as number))));
      expect(bad, `element ${bad}: ${got[bad]} vs ${want[bad]} (input seed ${rows + cols})`).toBe(-1);
    });
  }
});
