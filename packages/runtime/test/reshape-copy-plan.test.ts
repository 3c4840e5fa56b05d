// A reshape that no view expresses for the layouts a plan sees (nvFuser's test_reshape_cancellation
// and test_issue2275_repro1: a slice, then reshapes merging dims the slice left strided, the
// segmentation putting them into expr_eval segments that assumed dense intermediates) is a copy,
// as torch.reshape copies what it cannot view: the launch plan gives the expr_eval segment a
// pointwise copy kernel of the reshape's input into a dense buffer and views that buffer. Checked
// by interpreting the plan's views and copy steps on host memory (random values, seed printed)
// against the reference evaluator's values of the tensor the next kernel reads; a dense input
// needs no copy (views only, as before).
import { add, cast, cat, evaluate, Fusion, HostTensor, makeTensor, neg, reshape, slice, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, H100_PROPERTIES, makeRuntimeInfo, segmentationPlanner } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { buildCompilePlan, type CompilePlan, type PlannedArgument, type PlanRef } from '../src/index.js';

function input(f: Fusion, shape: number[], dtype: DataType = 'Float'): TensorView {
  const tv = makeTensor(f, { shape, dtype });
  f.addInput(tv);
  return tv;
}

function dense(sizes: readonly number[]): number[] {
  const s = new Array<number>(sizes.length).fill(1);
  for (let i = sizes.length - 2; i >= 0; i -= 1) s[i] = (s[i + 1] as number) * (sizes[i + 1] as number);
  return s;
}

/** slice → reshape (viewable) → reshape (merging the sliced-apart dims) → slice → cast, next to a cat. */
function sliceReshape(w: number, keep: number, intermediate: boolean): { f: Fusion; sliced: TensorView } {
  const f = new Fusion();
  const x = input(f, [1, 16, 4, w]);
  const y = input(f, [1, 16, 24, 2]);
  const s = slice(x, [0, 0, 0, 0], [1, 16, 4, keep]);
  const r2 = reshape(reshape(s, [1, 16, 4, 6, keep / 6]), [1, 16, 24, keep / 6]);
  const sliced = slice(r2, [0, 0, 0, keep / 6 - 2], [1, 16, 24, keep / 6]);
  if (intermediate) f.addOutput(sliced);
  else f.addOutput(cat([add(y, y), neg(cast(sliced, 'Float'))], 3));
  return { f, sliced };
}

function planOf(f: Fusion, sizes: number[][]): CompilePlan {
  const info = makeRuntimeInfo(f, sizes.map((z) => ({ sizes: z, alignment: 256 })), H100_PROPERTIES);
  const args: PlannedArgument[] = sizes.map((z) => ({ kind: 'tensor', sizes: z, strides: dense(z), alignment: 256 }));
  const registry = defaultSchedulerRegistry();
  return buildCompilePlan(f, args, H100_PROPERTIES, info, segmentationPlanner(registry)(f, info), { registry });
}

/** Storage of refs on the host: args given, buffers filled by the copy steps (a `set`: dense row-major). */
function readRef(plan: CompilePlan, memory: { args: Float64Array[]; buffers: Float64Array[] }, r: PlanRef): number[] {
  const read = (base: Float64Array, sizes: readonly number[], strides: readonly number[], offset: number): number[] => {
    const out: number[] = [];
    const walk = (d: number, at: number): void => {
      if (d === sizes.length) {
        out.push(base[at] as number);
        return;
      }
      for (let i = 0; i < (sizes[d] as number); i += 1) walk(d + 1, at + i * (strides[d] as number));
    };
    walk(0, offset);
    return out;
  };
  if (r.kind === 'view') {
    const v = plan.views[r.index];
    if (v === undefined) throw new Error('no view');
    const base = v.base.kind === 'arg' ? memory.args[v.base.index] : memory.buffers[v.base.index];
    if (base === undefined) throw new Error(`view ${r.index} reads ${v.base.kind} ${v.base.index}, not written yet`);
    return read(base, v.layout.sizes, v.layout.strides, v.offset);
  }
  const base = r.kind === 'arg' ? memory.args[r.index] : memory.buffers[r.index];
  if (base === undefined) throw new Error(`${r.kind} ${r.index} not written yet`);
  return [...base];
}

describe('a reshape no view expresses is copied (torch.reshape semantics)', () => {
  for (const [w, keep] of [[96, 48], [4608 / 16, 1536 / 16]] as const) {
    it(`slice [.., 0:${keep}] of width ${w}, reshaped to merge the strided dims: a copy kernel, then views of the copy`, () => {
      const seed = Math.floor(Math.random() * 1e9);
      let state = seed;
      const rand = (): number => {
        state = (state * 1103515245 + 12345) % 2147483648;
        return Math.round((state / 2147483648) * 2000 - 1000) / 8;
      };
      const { f } = sliceReshape(w, keep, false);
      const sizes = [[1, 16, 4, w], [1, 16, 24, 2]];
      const plan = planOf(f, sizes);
      const copyGroup = plan.groups.find((g) => (g.reshapeCopies?.length ?? 0) > 0);
      expect(copyGroup?.schedulerType, `seed ${seed}`).toBe('expr_eval');
      expect(copyGroup?.reshapeCopies?.[0]?.reason).toMatch(/cannot be viewed as the reshape's sizes: copied densely \(torch.reshape semantics\)/);
      const copySteps = plan.steps.filter((s) => s.groupId === copyGroup?.groupId);
      expect(copySteps).toHaveLength(1);
      // Interpret: the args, then every copy step (dense row-major set), then read what the last kernel reads.
      const x = Float64Array.from({ length: 16 * 4 * w }, rand);
      const y = Float64Array.from({ length: 16 * 24 * 2 }, rand);
      const memory = { args: [x, y], buffers: [] as Float64Array[] };
      for (const step of copySteps) {
        const out = step.refs[1];
        if (out?.kind !== 'buffer') throw new Error('the copy writes no buffer');
        memory.buffers[out.index] = Float64Array.from(readRef(plan, memory, step.refs[0] as PlanRef));
      }
      const last = plan.steps[plan.steps.length - 1];
      const sliceRef = last?.refs.find((r) => r.kind === 'view');
      if (sliceRef === undefined) throw new Error('the last kernel reads no view');
      const got = readRef(plan, memory, sliceRef);
      const ref = sliceReshape(w, keep, true).f;
      const [want] = evaluate(ref, [HostTensor.fromValues('Float', sizes[0] as number[], x), HostTensor.fromValues('Float', sizes[1] as number[], y)]);
      if (!(want instanceof HostTensor)) throw new Error('no tensor');
      expect(got, `seed ${seed}`).toEqual(want.toNumbers());
    });
  }

  it('the same fusion on a dense source of the reshape needs no copy (views only)', () => {
    // keep = w: the slice keeps every column, the reshape merges dense dims.
    const { f } = sliceReshape(48, 48, false);
    const plan = planOf(f, [[1, 16, 4, 48], [1, 16, 24, 2]]);
    expect(plan.groups.every((g) => g.reshapeCopies === undefined)).toBe(true);
    expect(plan.steps.filter((s) => plan.groups.find((g) => g.groupId === s.groupId)?.schedulerType === 'expr_eval')).toHaveLength(0);
  });
});
