// A row sum expanded over an empty dim (codegen shape-ops-random seed 1239807310: [30, 0] rows
// summed, broadcast to [30, 1], expanded to [30, 0]) is one reduction kernel writing its 30 row
// values once each; the output has no elements, but its buffer must hold the base the kernel
// writes (stride 0 over the expanded dim, device allocationSpan), as PyTorch's expand keeps its
// base's storage and nvFuser allocates an expanded output un-expanded. Before: a 0-byte
// allocation the kernel wrote 120 bytes into.
import { describe, expect, it } from 'vitest';
import { Tensor } from '@tsfuser/device';
import { broadcast, expand, Fusion, makeTensor, size, sum } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, H100_PROPERTIES, makeRuntimeInfo, segmentationPlanner } from '@tsfuser/scheduler';
import { buildCompilePlan, type PlannedArgument } from '../src/index.js';

describe('an expanded output over an empty dim', () => {
  it('gets a buffer holding the un-expanded values its kernel writes', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    f.addOutput(expand(broadcast(sum(x, [1]), [false, true]), [size(x, 0), size(x, 1)]));
    const sizes = [30, 0];
    const info = makeRuntimeInfo(f, [{ sizes, alignment: 256 }], H100_PROPERTIES);
    const args: PlannedArgument[] = [{ kind: 'tensor', sizes, strides: [1, 1], alignment: 256 }];
    const registry = defaultSchedulerRegistry();
    const p = buildCompilePlan(f, args, H100_PROPERTIES, info, segmentationPlanner(registry)(f, info), { registry });
    expect(p.segments.map((s) => s.kind)).toEqual(['kernel']);
    const kernel = p.segments[0];
    if (kernel?.kind !== 'kernel') throw new Error('not a kernel');
    expect(kernel.scheduler.type).toBe('reduction');
    // The kernel is launched: it writes a value for each of the 30 rows.
    expect(kernel.kernel.launch.grid.every((g) => g > 0)).toBe(true);
    const out = p.outputs[0];
    if (out?.kind !== 'buffer') throw new Error('the output is not a buffer');
    const layout = p.buffers[out.index]?.layout;
    expect(layout).toEqual({ sizes: [30, 0], strides: [1, 0] });
    expect(Tensor.deviceLayout('Float', layout?.sizes ?? [], layout?.strides ?? []).bytes).toBe(30 * 4);
  });
});
