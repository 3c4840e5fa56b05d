// Issue 32's acceptance, counted on the executor path (FusionExecutorCache on the fake H100,
// test/fake-device.ts: kernels compiled from their sources, not run): for a fixture of each
// scheduler — pointwise, reduction, inner / outer / inner-outer persistent, transpose, matmul
// (a cuBLASLt segment), attention, expr_eval, greedy — heuristics are computed exactly once per
// compiled segment and generated kernels scheduled exactly once; and no scheduler's canSchedule,
// asked by the segmenter for every candidate merge, schedules anything or computes any
// scheduler's heuristics (persistent ones check launch-bounds.ts instead). The runtime's library-call and attention segments take their parameters
// from their scheduler through the cache acceptance filled, so they count once like kernels.
import { cast, cumsum, Fusion, HostTensor, linear, makeTensor, mul, permute, relu, reshape, sdpfaFwd, softmax, sum, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { Tensor, validateGemm, type GemmCall, type GemmDescriptor } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { defaultSchedulerRegistry, HeuristicDataCache, type Scheduler } from '@tsfuser/scheduler';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadDefinition } from '../src/cli/load-definition.js';
import { planInputs } from '../src/cli/run-inputs.js';
import type { ExecuteInput } from '../src/execute/backend.js';
import { fakeDevice } from './fake-device.js';
import { FIXTURES } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

interface Work {
  heuristics: Map<string, number>;
  schedules: Map<string, number>;
  /** Schedules and heuristics (of any scheduler) computed while some canSchedule was running. */
  duringAcceptance: { schedules: number; heuristics: number };
}

/** Counts computations (not cache reads) per scheduler type, and what canSchedule computes. */
function countWork(): Work {
  const work: Work = { heuristics: new Map(), schedules: new Map(), duringAcceptance: { schedules: 0, heuristics: 0 } };
  const bump = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);
  let accepting = 0;
  const heuristics = HeuristicDataCache.prototype.heuristics;
  vi.spyOn(HeuristicDataCache.prototype, 'heuristics').mockImplementation(function (this: HeuristicDataCache, scheduler, compute) {
    return heuristics.call(this, scheduler, () => {
      bump(work.heuristics, scheduler.type);
      if (accepting > 0) work.duringAcceptance.heuristics += 1;
      return compute();
    });
  });
  for (const s of defaultSchedulerRegistry().schedulers) {
    const proto = Object.getPrototypeOf(s) as Scheduler;
    const schedule = proto.schedule;
    vi.spyOn(proto, 'schedule').mockImplementation(function (this: Scheduler, fusion, params) {
      bump(work.schedules, this.type);
      if (accepting > 0) work.duringAcceptance.schedules += 1;
      return schedule.call(this, fusion, params);
    });
    const canSchedule = proto.canSchedule;
    vi.spyOn(proto, 'canSchedule').mockImplementation(function (this: Scheduler, fusion, info, cache) {
      accepting += 1;
      try {
        return canSchedule.call(this, fusion, info, cache);
      } finally {
        accepting -= 1;
      }
    });
  }
  return work;
}

function input(f: Fusion, rank: number, dtype: DataType = 'BFloat16'): TensorView {
  const tv = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype });
  f.addInput(tv);
  return tv;
}

function zeros(dtype: DataType, sizes: number[]): Tensor {
  return Tensor.fromHost(HostTensor.fromValues(dtype, sizes, new Array<number>(sizes.reduce((a, b) => a * b, 1)).fill(0)));
}

/** Runs `fusion` once on the fake device; the plan's segments by scheduler type, counted. */
function run(fusion: Fusion, inputs: Tensor[]): Map<string, number> {
  // cuBLASLt stood in for: the call validated and recorded as the GEMM plan tests do.
  const gemm = {
    matmul: (desc: GemmDescriptor): GemmCall => ({ cachedAlgorithm: false, workspaceBytes: 0, ...validateGemm(desc) }),
    readInt32: (_pointer: bigint, count: number): Int32Array => new Int32Array(count),
    zero: (): void => undefined,
  };
  const cache = new FusionExecutorCache(fusion, fakeDevice().device, { concurrentSegments: false, gemm });
  cache.runFusion(inputs).forEach((t) => t.dispose());
  const plan = cache.lastPlan();
  if (plan === null) throw new Error('no plan ran');
  const perType = new Map<string, number>();
  for (const g of plan.segmentation.groups) {
    const type = g.schedulerType ?? 'none';
    perType.set(type, (perType.get(type) ?? 0) + 1);
  }
  return perType;
}

const GENERATED = new Set(['pointwise', 'reduction', 'inner_persistent', 'outer_persistent', 'inner_outer_persistent', 'transpose', 'greedy']);

function expectOncePerSegment(work: Work, perType: Map<string, number>, where: string): void {
  const skip = (t: string): boolean => t === 'expr_eval' || t === 'no_op';
  const computed = new Map([...perType].filter(([t]) => !skip(t)));
  expect(new Map([...work.heuristics].filter(([t]) => !skip(t))), `${where}: heuristics per scheduler`).toEqual(computed);
  expect(work.schedules, `${where}: schedules per scheduler`).toEqual(new Map([...perType].filter(([t]) => GENERATED.has(t))));
  expect(work.duringAcceptance, `${where}: computed inside canSchedule`).toEqual({ schedules: 0, heuristics: 0 });
}

describe('compile plan counts (issue 32)', () => {
  const built: { name: string; types: string[]; build: () => { fusion: Fusion; inputs: Tensor[] } }[] = [
    {
      name: 'linear → softmax (matmul + inner_persistent)',
      types: ['matmul', 'inner_persistent'],
      build: () => {
        const f = new Fusion();
        const x = input(f, 2);
        const w = input(f, 2);
        f.addOutput(softmax(cast(linear(x, w), 'Float'), 1));
        return { fusion: f, inputs: [zeros('BFloat16', [64, 128]), zeros('BFloat16', [256, 128])] };
      },
    },
    {
      name: 'prologue → sdpfa_fwd → relu (pointwise + attention)',
      types: ['pointwise', 'attention'],
      build: () => {
        const f = new Fusion();
        const [q, k, v] = [input(f, 4), input(f, 4), input(f, 4)];
        f.addOutput(relu(sdpfaFwd(cast(mul(q, 0.5), 'BFloat16'), k, v, { isCausal: true }).output));
        return { fusion: f, inputs: [zeros('BFloat16', [2, 4, 24, 64]), zeros('BFloat16', [2, 2, 40, 64]), zeros('BFloat16', [2, 2, 40, 64])] };
      },
    },
    {
      name: 'sum over rows (reduction)',
      types: ['reduction'],
      build: () => {
        const f = new Fusion();
        f.addOutput(sum(input(f, 2, 'Float'), [0]));
        return { fusion: f, inputs: [zeros('Float', [4096, 64])] };
      },
    },
    {
      name: 'a permute then a multiply (transpose)',
      types: ['transpose'],
      build: () => {
        const f = new Fusion();
        f.addOutput(mul(permute(input(f, 2, 'Float'), [1, 0]), 2));
        return { fusion: f, inputs: [zeros('Float', [512, 1024])] };
      },
    },
    {
      name: 'a reshape (expr_eval: a view, no heuristics)',
      types: ['expr_eval'],
      build: () => {
        const f = new Fusion();
        f.addOutput(reshape(input(f, 2, 'Float'), [-1]));
        return { fusion: f, inputs: [zeros('Float', [64, 128])] };
      },
    },
  ];
  for (const c of built) {
    it(`${c.name}: heuristics once and schedules once per segment, none inside canSchedule`, () => {
      const { fusion, inputs } = c.build();
      const work = countWork();
      const perType = run(fusion, inputs);
      for (const t of c.types) expect(perType.has(t), `${c.name}: a ${t} segment`).toBe(true);
      expectOncePerSegment(work, perType, c.name);
    });
  }

  // The persistent schedulers and greedy, from the definitions the other plan tests use.
  for (const file of ['softmax.py', 'layer_norm_backward.py', 'batch_norm_channels_last.py', 'rms_norm.py', 'issue785_gelu_bias_grad.py']) {
    it(`${file}: heuristics once and schedules once per segment, none inside canSchedule`, async () => {
      const { definition, inputs } = await loadDefinition(file, FIXTURES);
      const planned: ExecuteInput[] = planInputs(definition.inputs(), inputs, { seed: 0, cwd: FIXTURES }).inputs;
      const tensors = planned.map((i) => (i instanceof Tensor ? i : null));
      if (tensors.some((t) => t === null)) return; // scalars: covered by compile-plan-record.test.ts
      const work = countWork();
      const perType = run(definition.fusionIr(), tensors as Tensor[]);
      expectOncePerSegment(work, perType, file);
    });
  }

  it('a scan (greedy): heuristics once and schedules once, none inside canSchedule', () => {
    const f = new Fusion();
    f.addOutput(cumsum(input(f, 2, 'Float'), 1));
    const work = countWork();
    const perType = run(f, [zeros('Float', [64, 128])]);
    expect(perType).toEqual(new Map([['greedy', 1]]));
    expectOncePerSegment(work, perType, 'greedy');
  });

  // A persistent scheduler's acceptance checks the bounds its launch must fit (launch-bounds.ts,
  // memoized analyses), not its heuristics: the segmenter asks about every candidate merge (each
  // a fusion of its own), and the heuristics are computed once, for the segment that runs.
  it('linear → softmax computes inner_persistent heuristics once (not once per candidate merge)', () => {
    const f = new Fusion();
    const x = input(f, 2);
    const w = input(f, 2);
    f.addOutput(softmax(cast(linear(x, w), 'Float'), 1));
    const work = countWork();
    const perType = run(f, [zeros('BFloat16', [64, 128]), zeros('BFloat16', [256, 128])]);
    expect(work.heuristics.get('inner_persistent')).toBe(perType.get('inner_persistent'));
  });
});
