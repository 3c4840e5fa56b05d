// Reductions of inputs with expanded broadcast dims (stride 0, bS{1 ex n}; nvFuser issue 1678,
// its test_expanded_reduction). fusion-ir's reductionOp follows nvFuser's [Trivial reductions]:
// a reduced expanded dim is squeezed and the result is multiplied by its extent (sum), raised to
// its power (prod) or left as it is (max / min); a kept expanded dim stays a broadcast, which the
// reduction kernel iterates once (extent 1) and writes into a stride-0 output. Each case: the
// scheduler that takes it, and the generated kernel simulated on stride-0 inputs against the
// reference evaluator (fresh seeded inputs, TSFUSER_SEED replays).
import { Fusion, HostTensor, add, makeTensor, max, mul, prod, sum, type TensorView } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import type { CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { baseSeed, randomTensor, seeded, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();
const label = (s: string): string => `${s} (TSFUSER_SEED=${seed})`;

/** `t` viewed with new stride-0 dims of extent `n` at the positions of `at` (torch's unsqueeze + expand). */
function expandAt(t: HostTensor, at: readonly number[], n: readonly number[]): HostTensor {
  const sizes = [...t.sizes];
  const strides = [...t.strides];
  at.forEach((d, i) => {
    sizes.splice(d, 0, n[i] as number);
    strides.splice(d, 0, 0);
  });
  return new HostTensor(t.dtype, sizes, strides, t.data, t.offset);
}

/** A fusion of one input of `rank` dims, those in `expanded` expanded broadcasts (contiguity None). */
function withExpandedInput(rank: number, expanded: readonly number[], build: (x: TensorView) => TensorView[]): Fusion {
  const f = new Fusion();
  const flags = Array.from({ length: rank }, (_, d) => expanded.includes(d));
  const x = makeTensor(f, { shape: new Array<number>(rank).fill(-1), expanded: flags, contiguity: flags.map((e) => (e ? null : true)) });
  f.addInput(x);
  for (const o of build(x)) f.addOutput(o);
  return f;
}

const compiled: CompiledKernel[] = [];
const schedulerOf = (s: ReturnType<typeof simulateAndCheck>): string => {
  compiled.push(s.compiled);
  return s.compiled.params.schedulerType;
};

describe('reductions of expanded broadcast inputs', () => {
  it('a sum over expanded dims only is a pointwise kernel: value times extent (test_expanded_reduction)', () => {
    const r = seeded(seed);
    for (const keepdim of [false, true]) {
      const f = withExpandedInput(2, [0, 1], (x) => [sum(x, [0], keepdim)]);
      expect(f.exprs().map((e) => e.kind)).not.toContain('ReductionOp');
      const n = [2 + Math.floor(r() * 40), 1 + Math.floor(r() * 300)];
      const input = expandAt(randomTensor('Float', [], r), [0, 1], n);
      const sim = simulateAndCheck(f, [input], label(`sum dim 0 of a [${n.join(', ')}] stride-0 tensor, keepdim ${keepdim}`));
      expect(schedulerOf(sim)).toBe('pointwise');
    }
  });

  it('a kept expanded dim: the reduction kernel computes each row once and writes a stride-0 output', () => {
    const r = seeded(seed + 1);
    for (const keepdim of [false, true]) {
      const rows = 3 + Math.floor(r() * 60);
      const cols = 64 + Math.floor(r() * 2000);
      const f = withExpandedInput(2, [0], (x) => [sum(mul(x, 2), [1], keepdim)]);
      const sim = simulateAndCheck(f, [expandAt(randomTensor('Float', [cols], r), [0], [rows])], label(`sum dim 1 of [${rows} ex, ${cols}], keepdim ${keepdim}`));
      expect(schedulerOf(sim)).toBe('reduction');
      // Launched as for one row: the expanded dim is a loop of extent 1.
      const oneRow = withExpandedInput(2, [], (x) => [sum(mul(x, 2), [1], keepdim)]);
      const single = simulateAndCheck(oneRow, [randomTensor('Float', [1, cols], r)], label(`sum dim 1 of [1, ${cols}]`));
      expect(sim.compiled.launch).toEqual(single.compiled.launch);
    }
  });

  it('3-D: an inner, an outer and a mixed reduction beside an expanded middle dim, and a pre-reduction output', () => {
    const r = seeded(seed + 2);
    const [a, n, m] = [2 + Math.floor(r() * 9), 2 + Math.floor(r() * 7), 16 + Math.floor(r() * 500)];
    const input = (): HostTensor => expandAt(randomTensor('Float', [a, m], r), [1], [n]);
    for (const [dims, what] of [[[2], 'inner'], [[0], 'outer'], [[0, 2], 'both non-expanded'], [[1, 2], 'the expanded and the inner'], [[0, 1], 'the outer and the expanded']] as const) {
      const f = withExpandedInput(3, [1], (x) => [sum(add(x, 1), [...dims])]);
      const sim = simulateAndCheck(f, [input()], label(`sum over ${what} dims [${dims.join(', ')}] of [${a}, ${n} ex, ${m}]`));
      expect(schedulerOf(sim)).toBe('reduction');
    }
    const g = withExpandedInput(3, [1], (x) => {
      const y = mul(x, 3);
      return [sum(y, [2]), y];
    });
    simulateAndCheck(g, [input()], label('a pre-reduction output with an expanded dim beside the reduction'));
  });

  it('prod over an expanded dim raises to its extent; max over one squeezes it', () => {
    const r = seeded(seed + 3);
    const n = 2 + Math.floor(r() * 5);
    const m = 8 + Math.floor(r() * 300);
    // Values near 1 keep the power of the product finite.
    const base = HostTensor.fromValues('Float', [m], Array.from({ length: m }, () => 0.9 + r() * 0.2));
    for (const [name, op] of [['prod', prod], ['max', max]] as const) {
      const f = withExpandedInput(2, [0], (x) => [op(x, [0, 1])]);
      const kinds = f.exprs().map((e) => e.kind);
      expect(kinds).toContain('SqueezeOp');
      if (name === 'prod') expect(f.exprs().some((e) => e.kind === 'BinaryOp' && e.op === 'pow')).toBe(true);
      const sim = simulateAndCheck(f, [expandAt(base, [0], [n])], label(`${name} over [${n} ex, ${m}]`));
      expect(schedulerOf(sim)).toBe('reduction');
    }
  });

  // Runs after the cases above (vitest keeps the order in a file): every kernel they simulated.
  it.skipIf(!hasNvcc)('the simulated kernels compile with nvcc -cubin -arch=sm_90', async () => {
    expect(compiled.length).toBeGreaterThan(0);
    // One translation unit: the kernels get distinct names (their own are per fusion, not unique).
    const named = compiled.map((k, i) => ({ ...k, dumps: { ...k.dumps, cuda: k.dumps.cuda.replaceAll(k.kernelName, `${k.kernelName}_x${i}`) } }));
    await compileKernelsWithNvcc(named, { chunks: 1, label: 'reduction-expanded', cubin: true, context: `TSFUSER_SEED=${seed}` });
  });
});
