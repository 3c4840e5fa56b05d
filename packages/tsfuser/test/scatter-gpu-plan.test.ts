// scatter and index_put_accumulate on the GPU path without a GPU: the segmentation (a greedy
// segment of their own between pointwise segments) and the launch plan the executor cache runs
// (compileForTarget walks the same planLaunch): the pointwise copy of self into the scatter's
// output buffer comes right before the scatter kernel and writes the buffer the kernel writes.
import { Tensor } from '@tsfuser/device';
import { describe, expect, it } from 'vitest';
import { DataType, FusionCache, FusionDefinition } from '../src/index.js';
import { explainSegments } from '../src/cli/explain.js';
import { compileForTarget } from '../src/dumps/compile-for-target.js';
import { DEFAULT_TARGET } from '../src/dumps/target.js';

const cache = (): { cache: FusionCache } => ({ cache: new FusionCache() });

describe('scatter on the GPU path (plan, no GPU)', () => {
  const definition = FusionDefinition.build((fd) => {
    const x = fd.defineTensor(2, DataType.Float);
    const i = fd.defineTensor(2, DataType.Int);
    fd.addOutput(fd.ops.mul(fd.ops.scatter(fd.ops.exp(x), i, 0.5, 1), 2.0));
  }, cache());
  const x = Tensor.from(new Float32Array(100 * 128), [100, 128], 'Float');
  const i = Tensor.from(new BigInt64Array(100), [100, 1], 'Int');

  it('segments: pointwise, the scatter (greedy), pointwise', () => {
    const text = explainSegments(definition.fusionIr(), [x, i]);
    expect(text).toContain('3 segments (4 kernels)');
    expect(text).toMatch(/segment 1 \[greedy\] — reads T1, T2; writes T3 \(a copy kernel of its input into the output, then the scatter kernel\)/);
  });

  it('the launch plan copies self into the output right before the scatter kernel', () => {
    const { plan } = compileForTarget(definition.fusionIr(), [x, i], DEFAULT_TARGET);
    expect(plan.steps.map((s) => `${s.groupId}:${s.kernel.params.schedulerType}`)).toEqual(['0:pointwise', '1:pointwise', '1:greedy', '2:pointwise']);
    const [exp, copy, kernel] = plan.steps;
    // exp writes buffer b; the copy reads b and writes the scatter's output buffer, which the kernel writes.
    expect(copy?.refs[0]).toEqual(exp?.refs[exp.inputCount]);
    const out = copy?.refs[1];
    expect(out?.kind).toBe('buffer');
    expect(kernel?.refs[kernel.inputCount]).toEqual(out);
    expect(kernel?.kernel.dumps.cuda).toContain('__trap(); // scatter: index out of bounds');
  });

  it('index_put_accumulate of a fusion input: the copy reads the argument, never writes it', () => {
    const ipa = FusionDefinition.build((fd) => {
      const acc = fd.defineTensor(2, DataType.BFloat16);
      const idx = fd.defineTensor(1, DataType.Int);
      const value = fd.defineTensor(2, DataType.BFloat16);
      fd.addOutput(fd.ops.indexPutAccumulate(acc, idx, value));
    }, cache());
    const acc = Tensor.from(new Uint16Array(64 * 32), [64, 32], 'BFloat16');
    const idx = Tensor.from(new BigInt64Array(16), [16], 'Int');
    const value = Tensor.from(new Uint16Array(16 * 32), [16, 32], 'BFloat16');
    const { plan } = compileForTarget(ipa.fusionIr(), [acc, idx, value], DEFAULT_TARGET);
    expect(plan.steps.map((s) => s.kernel.params.schedulerType)).toEqual(['pointwise', 'greedy']);
    expect(plan.steps[0]?.refs).toEqual([{ kind: 'arg', index: 0 }, { kind: 'buffer', index: 0 }]);
    expect(plan.steps[1]?.refs).toEqual([{ kind: 'arg', index: 0 }, { kind: 'arg', index: 1 }, { kind: 'arg', index: 2 }, { kind: 'buffer', index: 0 }]);
    expect(plan.outputs).toEqual([{ kind: 'buffer', index: 0 }]);
    expect(plan.steps[1]?.kernel.dumps.cuda).toContain('nvfAtomicAdd(&');
  });
});
