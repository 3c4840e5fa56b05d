// Reshape through the FusionDefinition API on the GPU path's planning (`--explain`): a reshape
// between pointwise ops is one pointwise kernel; a dynamic reshape whose sizes are Int scalar
// inputs (define_vector(size)) or sizes of inputs (ops.size, -1 inferred) plans and segments with
// the values given (it used to fail: `cannot evaluate extent … from the input sizes`); the
// reference backend computes the same as PyTorch's reshape (row-major order kept).
import { Tensor } from '@tsfuser/device';
import { describe, expect, it } from 'vitest';
import { DataType, FusionCache, FusionDefinition } from '../src/index.js';
import { explainSegments } from '../src/cli/explain.js';

const cache = (): { cache: FusionCache } => ({ cache: new FusionCache() });

describe('reshape in definitions', () => {
  it('x * 2 → reshape [B, H, -1] → + 1 is one pointwise kernel', () => {
    const fd = FusionDefinition.build((f) => {
      const x = f.defineTensor(2, DataType.Float);
      const y = f.ops.reshape(f.ops.mul(x, 2), [f.ops.size(x, 0), 4, -1]);
      f.addOutput(f.ops.add(y, 1));
    }, cache());
    const x = Tensor.from(new Float32Array(8 * 64), [8, 64], 'Float');
    const text = explainSegments(fd.fusionIr(), [x]);
    expect(text).toContain('1 segment (1 kernel)');
    expect(text).toMatch(/segment 0 \[pointwise\]/);
  });

  it('a dynamic reshape from Int scalar inputs plans with their values and computes row-major', async () => {
    const fd = FusionDefinition.build((f) => {
      const x = f.defineTensor(2, DataType.Float);
      const shape = f.defineVector(2);
      f.addOutput(f.ops.add(f.ops.reshape(f.ops.mul(x, 2), shape), 1));
    }, cache());
    const values = Array.from({ length: 24 }, (_, i) => i);
    const x = Tensor.from(new Float32Array(values), [4, 6], 'Float');
    const text = explainSegments(fd.fusionIr(), [x, 3n, 8n]);
    expect(text).toContain('1 segment (1 kernel)');
    const [out] = await fd.execute([x, 3, 8], { backend: 'reference' });
    expect(out?.sizes).toEqual([3, 8]);
    expect(out?.toArray()).toEqual(values.map((v) => 2 * v + 1));
  });
});
