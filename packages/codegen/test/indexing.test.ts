// Indexed loads through the whole codegen path: the pointwise scheduler (several schedules),
// lowering to `IndexedLoad` statements and the kernel simulator, against the reference
// evaluator (loads copy elements, so every value must be equal). Also: an index outside the
// lookup dim traps in the kernel (the simulator throws where the kernel would trap), the CUDA
// text of the check, and the refusals (lookup computed in the fusion, scatter with a consumer).
import { add, evaluate, Fusion, HostTensor, indexSelect, makeTensor, mul, scatter, type EvalValue, type TensorView } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo, PointwiseScheduler, SchedulerRegistry, type PointwiseOverrides } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { indexingCases, indexingInputs, seededRandom, testSeed } from '@tsfuser/test-support';
import { compileFusion } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';
import { lowerWith, runtimeInfoOf, simulateAndCheck } from './shape-ops-simulation.js';

const VARIANTS: { name: string; overrides: PointwiseOverrides }[] = [
  { name: 'heuristic', overrides: {} },
  { name: '1D bdimx=64 unroll=4', overrides: { breakPoint: 0, bdimx: 64, unroll: 4 } },
  { name: '2D bdimx=32 unroll=2', overrides: { breakPoint: 1, bdimx: 32, unroll: 2 } },
];

const seed = testSeed();

describe(`indexed loads match the reference evaluator (seed ${seed})`, () => {
  for (const [rows, cols] of [[13, 37], [32, 256]] as const) {
    indexingCases(rows, cols).forEach((c, k) => {
      it(`${c.name} [${rows}, ${cols}] under ${VARIANTS.length} schedules`, () => {
        const inputs = indexingInputs(c, seededRandom(seed + k)) as EvalValue[];
        const rank = (c.fusion.outputs[0] as TensorView).nDims();
        for (const v of VARIANTS.filter((x) => (x.overrides.breakPoint ?? 0) < rank)) {
          simulateAndCheck(c.fusion, inputs, `${c.name} ${v.name} (TSFUSER_SEED=${seed})`, new SchedulerRegistry([new PointwiseScheduler(v.overrides)]));
        }
      });
    });
  }
});

describe('out-of-range indices', () => {
  it('trap in the kernel (never read outside the lookup) for every fixture with an index tensor', () => {
    for (const [k, c] of indexingCases(9, 20).entries()) {
      if (!c.inputs.some((i) => i.kind === 'index')) continue;
      const inputs = indexingInputs(c, seededRandom(seed + k), true) as EvalValue[];
      expect(() => evaluate(c.fusion, inputs), `${c.name}: reference`).toThrow(/is out of bounds for dim \d+ of T\d+ with size \d+/);
      // Output shapes from in-range inputs of the same sizes.
      const shapes = evaluate(c.fusion, indexingInputs(c, seededRandom(seed + k)) as EvalValue[]) as HostTensor[];
      const sim = lowerWith(c.fusion, runtimeInfoOf(c.fusion, inputs));
      const outs = shapes.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.numel).fill(0)));
      const args = inputs.map((v) => (v instanceof HostTensor ? v : Number(v)));
      expect(() => simulateKernel(sim.kernel, sim.compiled.launch, [...args, ...outs]), `${c.name}: kernel (TSFUSER_SEED=${seed})`).toThrow(
        /device trap: \w+ index \d+ is out of bounds for size \d+/,
      );
    }
  });

  it('the kernel checks the index before the load and traps', () => {
    const c = indexingCases(9, 20)[0];
    if (c === undefined) throw new Error('no fixture');
    const inputs = indexingInputs(c, seededRandom(1)) as EvalValue[];
    const sim = simulateAndCheck(c.fusion, inputs, c.name);
    const cuda = sim.compiled.dumps.cuda;
    expect(cuda).toMatch(/long long nvf_index = static_cast<long long>\(T\d+\[[^\]]+\]\);/);
    expect(cuda).toMatch(/if \(nvf_index < 0 \|\| nvf_index >= static_cast<long long>\(i\d+\)\) __trap\(\); \/\/ index_select: index out of bounds/);
    expect(cuda).toMatch(/= T0\[.*static_cast<nvfuser_index_t>\(nvf_index\) \* T0\.alloc_stride\[0\]\];/);
  });
});

describe('whole-row lookups use vector loads', () => {
  it('embedding and index_select of rows load 16 bytes at a time; gather stays scalar', () => {
    // Large enough to vectorize (smaller problems than one full wave do not).
    const cases = indexingCases(512, 256);
    const cudaOf = (name: string): string => {
      const c = cases.find((x) => x.name === name);
      if (c === undefined) throw new Error(`no fixture ${name}`);
      return simulateAndCheck(c.fusion, indexingInputs(c, seededRandom(seed)) as EvalValue[], `${name} (TSFUSER_SEED=${seed})`).compiled.dumps.cuda;
    };
    expect(cudaOf('embedding_padding_idx_Float')).toMatch(/loadGlobalToLocal<float, 4>\(&T\d+\[[^\]]*\], &T1\[.*nvf_index.*\]\);/);
    expect(cudaOf('index_select_dim0_Float')).toMatch(/loadGlobalToLocal<float, 4>\(&T\d+\[[^\]]*\], &T0\[.*nvf_index.*\]\);/);
    expect(cudaOf('gather_dim1_Float')).not.toMatch(/loadGlobalToLocal<[^>]*>\([^;]*nvf_index/);
  });

  it('a lookup whose rows are not a whole number of vectors is read element by element', () => {
    const c = indexingCases(512, 254).find((x) => x.name === 'embedding_padding_idx_Float');
    if (c === undefined) throw new Error('no fixture');
    const cuda = simulateAndCheck(c.fusion, indexingInputs(c, seededRandom(seed)) as EvalValue[], `rows of 254 (TSFUSER_SEED=${seed})`).compiled.dumps.cuda;
    expect(cuda).not.toMatch(/loadGlobalToLocal<float, 4>\([^;]*nvf_index/);
  });
});

describe('what the pointwise scheduler refuses', () => {
  const info = (f: Fusion, sizes: number[][]) => makeRuntimeInfo(f, sizes.map((s) => ({ sizes: s })));
  it('a lookup tensor computed in the fusion (it becomes a segment input instead)', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    const i = makeTensor(f, { shape: [-1], dtype: 'Int' });
    f.addInput(x);
    f.addInput(i);
    f.addOutput(indexSelect(mul(x, 2), 0, i));
    const r = new PointwiseScheduler().canSchedule(f, info(f, [[4, 8], [3]]));
    expect(r).toEqual({ ok: false, reason: 'index_select producing T4: its lookup tensor T2 is computed in the fusion; an indexed load reads a segment input' });
  });
  it('scatter with a consumer is not one kernel (the greedy scheduler takes the scatter alone)', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    const i = makeTensor(f, { shape: [-1, -1], dtype: 'Int' });
    f.addInput(x);
    f.addInput(i);
    f.addOutput(add(scatter(x, 1, i, x), 1));
    expect(() => compileFusion(f, info(f, [[4, 8], [4, 2]]))).toThrow(/pointwise: scatter producing T2 writes at data-dependent positions and is left to the greedy scheduler .*greedy: BinaryOp producing T3 is not part of a scatter kernel/);
  });
});
