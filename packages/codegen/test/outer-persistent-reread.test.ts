// The outer persistent scheduler's re-read form (scheduler src/outer-persistent/reread-buffers.ts,
// issue 38): no buffer is kept in registers, each phase re-reads the inputs from global memory
// and recomputes what it needs. Each fusion is forced into the form (OuterPersistentOverrides
// { reread: true }) at random sizes, including rows and columns the block does not divide,
// simulated on the CPU against the reference evaluator (NaN-poisoned outputs, seed printed), and
// the kernel is checked to read its input in every phase (one global load per phase loop) and to
// keep no register array of the batch length.
import { add, broadcast, cast, exp, Fusion, makeTensor, max, mean, mul, reciprocal, sub, sum, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { OuterPersistentScheduler, PointwiseScheduler, ReductionScheduler, SchedulerRegistry } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { allStmts } from '../src/kernel-ir/effects.js';
import type { Kernel } from '../src/index.js';
import { baseSeed, randomTensor, seeded, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();
const label = (s: string): string => `${s} (TSFUSER_SEED=${seed})`;

function registry(): SchedulerRegistry {
  return new SchedulerRegistry([new PointwiseScheduler(), new ReductionScheduler(), new OuterPersistentScheduler({ reread: true })]);
}

function input(f: Fusion, rank: number, dtype: DataType): TensorView {
  const t = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype });
  f.addInput(t);
  return t;
}

const f32 = (t: TensorView): TensorView => (t.dtype === 'Float' ? t : cast(t, 'Float'));
const back = (t: TensorView, d: DataType): TensorView => (d === 'Float' ? t : cast(t, d));
const overRows = (t: TensorView): TensorView => broadcast(t, [true, false]);

/** The sweep's softmax_outer: softmax over dim 0 of [rows, hidden]. */
function softmaxOuter(dtype: DataType): Fusion {
  const f = new Fusion();
  const x = f32(input(f, 2, dtype));
  const e = exp(sub(x, overRows(max(x, [0]))));
  f.addOutput(back(mul(e, reciprocal(overRows(sum(e, [0])))), dtype));
  return f;
}

/** The sweep's softmax_bwd_outer: dx = y · (dy − Σ_rows dy · y). Inputs dy, y. */
function softmaxBackwardOuter(dtype: DataType): Fusion {
  const f = new Fusion();
  const dy = f32(input(f, 2, dtype));
  const y = f32(input(f, 2, dtype));
  f.addOutput(back(mul(y, sub(dy, overRows(sum(mul(dy, y), [0])))), dtype));
  return f;
}

/** Mean-centred variance per column with the centred values and the mean as extra outputs. */
function centredWithOutputs(dtype: DataType): Fusion {
  const f = new Fusion();
  const x = f32(input(f, 2, dtype));
  const mu = mean(x, [0]);
  const xm = sub(x, overRows(mu));
  f.addOutput(back(xm, dtype));
  f.addOutput(mu);
  const v = mean(mul(xm, xm), [0]);
  f.addOutput(add(mul(xm, overRows(exp(sub(mu, v)))), xm));
  return f;
}

/** Global loads of fusion input `name` and the longest local array the kernel allocates. */
function loadsAndArrays(kernel: Kernel, name: string): { loads: number; longestArray: number } {
  let loads = 0;
  let longestArray = 0;
  for (const s of allStmts(kernel.body)) {
    if (s.kind === 'LoadStore' && s.in.memory === 'Global' && s.in.tensor === name) loads += 1;
    if (s.kind === 'Allocate' && s.memory === undefined) longestArray = Math.max(longestArray, s.size);
  }
  return { loads, longestArray };
}

describe('outer persistent: the re-read form', () => {
  const cases: { name: string; build: (d: DataType) => Fusion; phases: number; inputs: number }[] = [
    { name: 'softmax_outer', build: softmaxOuter, phases: 3, inputs: 1 },
    { name: 'softmax_bwd_outer', build: softmaxBackwardOuter, phases: 2, inputs: 2 },
  ];
  for (const c of cases) {
    it(`${c.name}: simulated against the reference at random sizes, f32 and bf16, the input read in every phase`, () => {
      const r = seeded(seed + c.phases);
      for (const dtype of ['Float', 'BFloat16'] as const) {
        for (let k = 0; k < 3; k += 1) {
          const rows = 1 + Math.floor(r() * 700);
          const cols = 1 + Math.floor(r() * 70);
          const f = c.build(dtype);
          const inputs = Array.from({ length: c.inputs }, () => randomTensor(dtype, [rows, cols], r));
          const { kernel, compiled } = simulateAndCheck(f, inputs, label(`${c.name} ${dtype} ${rows}x${cols}`), registry());
          const p = compiled.params;
          expect(p.schedulerType).toBe('outer_persistent');
          if (p.schedulerType !== 'outer_persistent') continue;
          expect(p.rereadPersistentBuffers).toBe(true);
          const first = f.inputs[0] as TensorView;
          const { loads, longestArray } = loadsAndArrays(kernel, `T${first.name}`);
          expect(loads, `${c.name} ${dtype} ${rows}x${cols}: loads of the input`).toBe(c.phases);
          expect(longestArray, `${c.name} ${dtype} ${rows}x${cols}: no batch-long register array (batch ${p.batchesPerBlockInnerReduction})`).toBeLessThan(Math.max(2, p.batchesPerBlockInnerReduction));
        }
      }
    });
  }

  it('intermediate and reduction outputs beside the re-read phases, f32 and bf16', () => {
    const r = seeded(seed + 7);
    for (const dtype of ['Float', 'BFloat16'] as const) {
      for (const [rows, cols] of [[129, 33], [1000, 16], [7, 5]] as const) {
        const f = centredWithOutputs(dtype);
        const { compiled } = simulateAndCheck(f, [randomTensor(dtype, [rows, cols], r)], label(`centred ${dtype} ${rows}x${cols}`), registry());
        expect(compiled.params.schedulerType === 'outer_persistent' && compiled.params.rereadPersistentBuffers === true).toBe(true);
      }
    }
  });
});
