// The kernel_args dump of a kernel with fast divisions (codegen's NvfDivisorMagic parameter):
// after the tensors, one line naming each divisor, the size it divides by and the (magic, shift)
// the packer writes for it; TSFUSER_DISABLE=fast_division is the GPU backend's switch.
import { describe, expect, it } from 'vitest';
import { divisorMagic } from '@tsfuser/codegen';
import { DataType, FusionCache, FusionDefinition, Tensor } from '../src/index.js';
import { fastDivisionDisabled } from '../src/execute/gpu-backend.js';

describe('kernel_args with fast divisors', () => {
  it('prints the divisor parameter: each divisor, its size and its magic numbers', async () => {
    const fd = FusionDefinition.build((d) => {
      const a = d.defineTensor({ shape: [-1, -1, -1], contiguity: [true, true, true], dtype: 'Float' });
      const b = d.defineTensor({ shape: [-1, 1, -1], contiguity: [true, null, true], dtype: 'Float' });
      d.addOutput(d.ops.add(a, b));
    }, { cache: new FusionCache() });
    const tensor = (sizes: number[]): Tensor => Tensor.from(Float32Array.from({ length: sizes.reduce((x, y) => x * y, 1) }, (_, i) => i), sizes, DataType.Float);
    await fd.execute([tensor([4, 5, 3]), tensor([4, 1, 3])], { backend: 'reference', dump: new Set(['kernel_args']), captureDebugOutput: true });
    const text = fd.debugOutput();
    const m5 = divisorMagic(5);
    const m3 = divisorMagic(3);
    expect(text).toMatch(/^Arguments for kernel nvfuser_pointwise_f\d+_c1_r0_g0:\n/);
    expect(text).toContain(`  divisors nvf_divisors (16 bytes at 96): i1_div = T0 size 1 = 5 (magic ${m5.magic}, shift ${m5.shift}); i2_div = T0 size 2 = 3 (magic ${m3.magic}, shift ${m3.shift})\n`);
    expect(text).toContain('  argument buffer: 112 bytes, index type Int32\n');
  });

  it('TSFUSER_DISABLE=fast_division (a comma-separated list) turns it off', () => {
    expect(fastDivisionDisabled({})).toBe(false);
    expect(fastDivisionDisabled({ TSFUSER_DISABLE: 'fast_division' })).toBe(true);
    expect(fastDivisionDisabled({ TSFUSER_DISABLE: 'other, fast_division' })).toBe(true);
    expect(fastDivisionDisabled({ TSFUSER_DISABLE: 'fast_divisions' })).toBe(false);
  });
});
