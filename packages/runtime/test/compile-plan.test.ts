// The compile plan, built without a device: segments by kind (a view, generated kernels), each
// kernel segment's parameters, scheduled fusion and kernel belonging together, the steps
// launching exactly the plan's kernel segments, and the kernel memo reusing a kernel for other
// sizes with equal decisions (no second schedule or codegen).
import { describe, expect, it } from 'vitest';
import { Fusion, add, broadcast, makeTensor, reshape, sub, sum } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, H100_PROPERTIES, makeRuntimeInfo, segmentationPlanner, type RuntimeInfo } from '@tsfuser/scheduler';
import { buildCompilePlan, type CompilePlan, type KernelMemo, type PlannedArgument } from '../src/index.js';

/** x - sum(x, 1) broadcast back (a persistent kernel), and a reshape of another input (a view: a segment of its own). */
function twoOutputFusion(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1] });
  const y = makeTensor(f, { shape: [-1, -1] });
  f.addInput(x);
  f.addInput(y);
  f.addOutput(sub(x, broadcast(sum(x, [1]), [false, true])));
  f.addOutput(reshape(y, [-1]));
  return f;
}

function plan(fusion: Fusion, sizes: number[], memo?: KernelMemo): CompilePlan {
  const info: RuntimeInfo = makeRuntimeInfo(fusion, [{ sizes, alignment: 256 }, { sizes: [8, 16], alignment: 256 }], H100_PROPERTIES);
  const args: PlannedArgument[] = [
    { kind: 'tensor', sizes, strides: [sizes[1] as number, 1], alignment: 256 },
    { kind: 'tensor', sizes: [8, 16], strides: [16, 1], alignment: 256 },
  ];
  const registry = defaultSchedulerRegistry();
  const segmentation = segmentationPlanner(registry)(fusion, info);
  return buildCompilePlan(fusion, args, H100_PROPERTIES, info, segmentation, { registry, ...(memo === undefined ? {} : { memo }) });
}

describe('buildCompilePlan', () => {
  it('one segment per group, by kind; kernel segments carry scheduler, params, scheduled fusion and kernel made from each other', () => {
    const p = plan(twoOutputFusion(), [64, 1024]);
    expect(p.segments.length).toBe(p.segmentation.groups.length);
    expect(p.segments.map((s) => s.kind).sort()).toEqual(['kernel', 'view']);
    for (const s of p.segments) {
      if (s.kind !== 'kernel') continue;
      expect(s.scheduler.type).toBe(s.params.schedulerType);
      expect(s.scheduled.params === s.params).toBe(true);
      expect(s.kernel.params === s.params).toBe(true);
      expect(s.kernel.scheduledFusion === s.scheduled.fusion).toBe(true);
      expect(s.grid).toEqual([s.params.lparams.gdimx, s.params.lparams.gdimy, s.params.lparams.gdimz]);
    }
    // Every step launches a kernel segment of the plan (the same record, not a copy).
    const kernels = new Set<unknown>(p.segments.filter((s) => s.kind === 'kernel'));
    expect(p.steps.length).toBe(kernels.size);
    for (const step of p.steps) expect(kernels.has(step.kernel)).toBe(true);
    expect(p.views.length).toBe(1);
  });

  it('other sizes with the same decisions reuse the memo\'s kernel: not scheduled or generated again', () => {
    const fusion = twoOutputFusion();
    const memo: KernelMemo = new Map();
    const first = plan(fusion, [64, 1024], memo);
    const second = plan(fusion, [128, 1024], memo);
    const kernelOf = (p: CompilePlan) => p.segments.find((s) => s.kind === 'kernel');
    const a = kernelOf(first);
    const b = kernelOf(second);
    if (a?.kind !== 'kernel' || b?.kind !== 'kernel') throw new Error('no kernel segment');
    expect(b.kernel === a.kernel).toBe(true);
    expect(b.codegenMs).toBe(0);
    expect(b.grid[0]).toBe(2 * a.grid[0]);
    expect(memo.size).toBe(1);
  });

  it('a plan made with a registry that lacks the segmentation\'s scheduler is a clear error', () => {
    const fusion = new Fusion();
    const a = makeTensor(fusion, { shape: [-1] });
    fusion.addInput(a);
    fusion.addOutput(add(a, 1));
    const info = makeRuntimeInfo(fusion, [{ sizes: [8] }]);
    const segmentation = segmentationPlanner(defaultSchedulerRegistry())(fusion, info);
    const args: PlannedArgument[] = [{ kind: 'tensor', sizes: [8], strides: [1], alignment: 16 }];
    expect(() => buildCompilePlan(fusion, args, H100_PROPERTIES, info, segmentation, { registry: { schedulers: [] } as unknown as ReturnType<typeof defaultSchedulerRegistry> })).toThrow(
      /segment 0 was planned for the pointwise scheduler, which the registry does not have/,
    );
  });
});
