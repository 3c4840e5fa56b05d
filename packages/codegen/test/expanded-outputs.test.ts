// Expanded outputs and expanded (stride-0) inputs. An output whose broadcast dims are expanded
// is allocated as the runtime does — dense over the other dims, stride 0 on the expanded ones
// (a view of the un-expanded result, nvFuser's semantics) — and the kernel writes each element
// of the un-expanded result once. Inputs whose non-contiguous dims have stride 0 (PyTorch's
// expand) are read through their strides. Simulated against the reference evaluator.
import { add, broadcast, cast, expand, Fusion, makeTensor, mul, size, softmax, sum, HostTensor, type TensorView } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { allStmts } from '../src/kernel-ir/effects.js';
import { defaultSchedulerRegistry, makeRuntimeInfo } from '@tsfuser/scheduler';
import { baseSeed, randomTensor, seeded, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();
const label = (s: string): string => `${s} (TSFUSER_SEED=${seed})`;

/** A stride-0 view of `t` along new dim `dim` of extent `n` (torch's unsqueeze(dim).expand). */
function expandedInput(t: HostTensor, dim: number, n: number): HostTensor {
  const sizes = [...t.sizes];
  const strides = [...t.strides];
  sizes.splice(dim, 0, n);
  strides.splice(dim, 0, 0);
  return new HostTensor(t.dtype, sizes, strides, t.data, t.offset);
}

describe('expanded outputs', () => {
  it('an expanded result is written once per un-expanded element into a stride-0 output', () => {
    const r = seeded(seed);
    for (const dtype of ['Float', 'Half'] as const) {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1], dtype });
      const y = makeTensor(f, { shape: [-1, -1], dtype });
      f.addInput(x);
      f.addInput(y);
      const e = expand(broadcast(mul(x, 2), [false, true]), [size(x, 0), size(y, 1)]);
      f.addOutput(e);
      const { kernel, compiled } = simulateAndCheck(f, [randomTensor(dtype, [300], r), randomTensor(dtype, [300, 77], r)], label(`expand output ${dtype}`));
      expect(compiled.params.schedulerType).toBe('pointwise');
      // The output is stored only over x's 300 elements: the launch covers them, not 300·77.
      const threads = compiled.launch.grid[0] * compiled.launch.grid[1] * compiled.launch.block[0] * compiled.launch.block[1];
      expect(threads).toBeLessThan(300 * 77);
      expect(allStmts(kernel.body).some((s) => s.kind === 'LoadStore' && s.out.memory === 'Global')).toBe(true);
    }
  });

  it('an expanded output beside a full-size output: same iteration space in one kernel, else refused with a reason', () => {
    const r = seeded(seed + 1);
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, 1] });
    const y = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    f.addInput(y);
    f.addOutput(add(x, y));
    f.addOutput(expand(mul(x, 3), [size(x, 0), size(y, 1)]));
    const info = makeRuntimeInfo(f, [{ sizes: [129, 1] }, { sizes: [129, 65] }]);
    // The expanded output has fewer iteration dims than the reference: each of its elements would
    // be written by 65 threads, so the pointwise scheduler leaves it to segmentation.
    const picked = defaultSchedulerRegistry().tryPick(f, info);
    expect(picked.scheduler).toBeNull();
    expect(picked.rejected.map((x) => x.reason).join('\n')).toMatch(/output T\d+ has 1 iteration dims but the reference T\d+ has 2/);
    const g = new Fusion();
    const a = makeTensor(g, { shape: [-1, 1] });
    const b = makeTensor(g, { shape: [-1, -1] });
    g.addInput(a);
    g.addInput(b);
    const e = expand(mul(a, 3), [size(a, 0), size(b, 1)]);
    g.addOutput(e);
    g.addOutput(add(a, e));
    simulateAndCheck(g, [randomTensor('Float', [129, 1], r), randomTensor('Float', [129, 65], r)], label('expand beside its consumer'));
  });

  it('a 0-dim / size-1 result expanded to a 3-d output', () => {
    const r = seeded(seed + 2);
    const f = new Fusion();
    const x = makeTensor(f, { shape: [1, 1, -1] });
    const y = makeTensor(f, { shape: [-1, -1, -1] });
    f.addInput(x);
    f.addInput(y);
    f.addOutput(expand(cast(mul(x, 0.5), 'Half'), [size(y, 0), size(y, 1), size(x, 2)]));
    simulateAndCheck(f, [randomTensor('Float', [1, 1, 1031], r), randomTensor('Float', [3, 5, 1031], r)], label('expand leading dims'));
  });
});

describe('expanded (stride-0) inputs', () => {
  it('pointwise: a stride-0 dim declared non-contiguous is indexed through its stride', () => {
    const r = seeded(seed + 3);
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], contiguity: [false, false] });
    const y = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    f.addInput(y);
    f.addOutput(add(x, y));
    const rows = expandedInput(randomTensor('Float', [257], r), 0, 31);
    const cols = expandedInput(randomTensor('Float', [31], r), 1, 257);
    simulateAndCheck(f, [rows, randomTensor('Float', [31, 257], r)], label('stride-0 rows'));
    simulateAndCheck(f, [cols, randomTensor('Float', [31, 257], r)], label('stride-0 columns'));
  });

  it('reduction and inner persistent kernels read a stride-0 input', () => {
    const r = seeded(seed + 4);
    for (const build of [(t: TensorView): TensorView => sum(t, [1]), (t: TensorView): TensorView => sum(t, [0]), (t: TensorView): TensorView => softmax(t, 1)]) {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1], contiguity: [false, false] });
      const y = makeTensor(f, { shape: [-1, -1] });
      f.addInput(x);
      f.addInput(y);
      f.addOutput(build(add(x, y)));
      simulateAndCheck(f, [expandedInput(randomTensor('Float', [512], r), 0, 40), randomTensor('Float', [40, 512], r)], label('stride-0 into a reduction'));
      simulateAndCheck(f, [expandedInput(randomTensor('Float', [40], r), 1, 512), randomTensor('Float', [40, 512], r)], label('stride-0 columns into a reduction'));
    }
  });
});
