// An expr_eval reshape whose input these layouts cannot view is copied by a kernel, as
// torch.reshape copies (nvFuser's test_reshape_squeeze_concretization: a [0:1, 0:2, 0:4] slice of
// a [2, 5, 10] tensor, strides [50, 10, 1], reshaped to [1, 8] then [8]). The segment plan made
// the slice one expr_eval segment and the reshapes another, assuming a contiguous intermediate;
// the launch plan sees the slice's real strides. Before: "segment 1 (expr_eval): reshape
// producing T2: sizes [1, 2, 4] with strides [50, 10, 1] cannot be viewed as [8] without a copy".
import { describe, expect, it } from 'vitest';
import { Fusion, makeTensor, reshape, slice } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, H100_PROPERTIES, makeRuntimeInfo, segmentationPlanner } from '@tsfuser/scheduler';
import { buildCompilePlan, type CompilePlan, type PlannedArgument } from '../src/index.js';

function sliceThenReshape(stop: readonly number[]): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1, -1] });
  f.addInput(x);
  const s = slice(x, [0, 0, 0], [...stop]);
  const n = stop.reduce((a, b) => a * b, 1);
  f.addOutput(reshape(reshape(s, [1, n]), [n]));
  return f;
}

function plan(fusion: Fusion): CompilePlan {
  const info = makeRuntimeInfo(fusion, [{ sizes: [2, 5, 10], alignment: 256 }], H100_PROPERTIES);
  const args: PlannedArgument[] = [{ kind: 'tensor', sizes: [2, 5, 10], strides: [50, 10, 1], alignment: 256 }];
  const registry = defaultSchedulerRegistry();
  return buildCompilePlan(fusion, args, H100_PROPERTIES, info, segmentationPlanner(registry)(fusion, info), { registry });
}

describe('an expr_eval reshape of a layout it cannot view', () => {
  it('is a kernel reading the slice view with its real strides', () => {
    const p = plan(sliceThenReshape([1, 2, 4]));
    expect(p.segmentation.groups.map((g) => g.schedulerType)).toEqual(['expr_eval', 'expr_eval']);
    expect(p.segments.map((s) => s.kind)).toEqual(['view', 'kernel']);
    const kernel = p.segments[1];
    if (kernel?.kind !== 'kernel') throw new Error('the reshape segment is not a kernel');
    expect(kernel.scheduler.type).toBe('pointwise');
    const layouts = kernel.info.inputs.map((i) => (i.kind === 'tensor' ? [i.sizes, i.strides] : null));
    expect(layouts).toContainEqual([[1, 2, 4], [50, 10, 1]]);
    expect(p.steps.length).toBe(1);
    // The view is read through its strides, not as a dense [1, 2, 4] tensor.
    expect(kernel.kernel.dumps.cuda).toMatch(/T\d+\.alloc_stride\[0\]/);
    // The kernel reads the view (offset into the argument's storage) and writes the output buffer.
    expect(p.views.length).toBe(1);
    expect(p.outputs[0]?.kind).toBe('buffer');
  });

  it('stays a view where the layout allows one (a slice of whole rows)', () => {
    const p = plan(sliceThenReshape([1, 5, 10]));
    expect(p.segments.every((s) => s.kind === 'view')).toBe(true);
    expect(p.steps.length).toBe(0);
  });
});
