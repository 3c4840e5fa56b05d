// CPU-side tests of the executor pieces that need no GPU: input layout validation, output
// allocation layouts, alignment classes, and that kernels are reusable across sizes (the same
// heuristics give the same CUDA source, which is what the executor cache keys on).
import { describe, expect, it } from 'vitest';
import { Fusion, add, broadcast, expand, makeTensor, mul, type TensorView } from '@tsfuser/fusion-ir';
import { bindExtents, makeRuntimeInfo } from '@tsfuser/scheduler';
import { compileFusion } from '@tsfuser/codegen';
import { Tensor } from '@tsfuser/device';
import { ExecutorInputError, outputLayout, pointerAlignment } from '../src/index.js';
import { validateInputLayout } from '../src/executor/input-validation.js';

function bcastFusion(contiguous = true): { fusion: Fusion; t0: TensorView; t1: TensorView; out: TensorView } {
  const fusion = new Fusion();
  const t0 = makeTensor(fusion, { shape: [-1, 1, -1], ...(contiguous ? {} : { contiguity: [false, null, false] }) });
  const t1 = makeTensor(fusion, { shape: [-1, -1, -1] });
  fusion.addInput(t0);
  fusion.addInput(t1);
  const out = mul(add(t0, t1), 3);
  fusion.addOutput(out);
  return { fusion, t0, t1, out };
}

describe('validateInputLayout', () => {
  it('accepts dense strides and ignores size-1 dims', () => {
    const { t0, t1 } = bcastFusion();
    expect(() => validateInputLayout(0, t0, [4, 1, 6], [6, 6, 1])).not.toThrow();
    expect(() => validateInputLayout(0, t0, [4, 1, 6], [6, 999, 1])).not.toThrow();
    expect(() => validateInputLayout(1, t1, [1, 5, 6], [77, 6, 1])).not.toThrow();
  });

  it('rejects a non-dense stride on a contiguous dim, naming input, tensor and dim', () => {
    const { t0 } = bcastFusion();
    expect(() => validateInputLayout(0, t0, [4, 1, 6], [12, 6, 2])).toThrow(ExecutorInputError);
    expect(() => validateInputLayout(0, t0, [4, 1, 6], [12, 6, 2])).toThrow(/input 0 \(T0\): dim 2 is declared contiguous, so its stride must be 1, got 2/);
  });

  it('accepts any strides on dims declared non-contiguous', () => {
    const { t0 } = bcastFusion(false);
    expect(() => validateInputLayout(0, t0, [4, 1, 6], [12, 6, 2])).not.toThrow();
  });

  it('rejects a broadcast dim of size other than 1', () => {
    const { t0 } = bcastFusion();
    expect(() => validateInputLayout(0, t0, [4, 3, 6], [18, 6, 1])).toThrow(/dim 1 is a broadcast dim and must have size 1, got 3/);
  });
});

describe('outputLayout', () => {
  it('gives dense row-major strides from the bound input sizes', () => {
    const { fusion, out } = bcastFusion();
    const info = makeRuntimeInfo(fusion, [{ sizes: [3, 1, 7] }, { sizes: [3, 5, 7] }]);
    expect(outputLayout(out, bindExtents(fusion, info))).toEqual({ sizes: [3, 5, 7], strides: [35, 7, 1] });
  });

  it('gives expanded broadcast dims stride 0 and keeps size-0 dims', () => {
    const fusion = new Fusion();
    const a = makeTensor(fusion, { shape: [-1] });
    fusion.addInput(a);
    const b = expand(broadcast(a, [true, false]), [4, -1]);
    fusion.addOutput(b);
    const layout = outputLayout(b, bindExtents(fusion, makeRuntimeInfo(fusion, [{ sizes: [6] }])));
    expect(layout).toEqual({ sizes: [4, 6], strides: [0, 1] });
    const empty = outputLayout(b, bindExtents(fusion, makeRuntimeInfo(fusion, [{ sizes: [0] }])));
    expect(empty.sizes).toEqual([4, 0]);
  });
});

describe('executor cache keys', () => {
  it('pointerAlignment is the largest power of two dividing the address, capped at 256', () => {
    expect(pointerAlignment(0x7f0000001000n)).toBe(256);
    expect(pointerAlignment(0x7f0000001004n)).toBe(4);
    expect(pointerAlignment(0x7f0000001002n)).toBe(2);
    expect(pointerAlignment(0x7f0000001030n)).toBe(16);
    expect(pointerAlignment(0x7f0000001001n)).toBe(1);
    expect(pointerAlignment(0x7f0000001080n)).toBe(128);
    expect(pointerAlignment(0n)).toBe(256);
  });

  it('one kernel serves many sizes: equal heuristics (minus grid) give identical CUDA source', () => {
    const { fusion } = bcastFusion();
    const sources = new Set<string>();
    for (const [a, b, c] of [[64, 512, 8192], [32, 256, 8192], [128, 64, 4096]] as const) {
      const k = compileFusion(fusion, makeRuntimeInfo(fusion, [{ sizes: [a, 1, c] }, { sizes: [a, b, c] }]), { fusionId: 0 });
      sources.add(k.source);
    }
    expect(sources.size).toBe(1);
  });

  it('a misaligned input changes the kernel (no vectorized access)', () => {
    const { fusion } = bcastFusion();
    const aligned = compileFusion(fusion, makeRuntimeInfo(fusion, [{ sizes: [64, 1, 8192] }, { sizes: [64, 512, 8192] }]));
    const misaligned = compileFusion(fusion, makeRuntimeInfo(fusion, [{ sizes: [64, 1, 8192], alignment: 4 }, { sizes: [64, 512, 8192] }]));
    expect(aligned.source).toContain('loadGlobalToLocalEvictLastL2<float, 4>');
    expect(misaligned.source).not.toContain('loadGlobalToLocalEvictLastL2<float, 4>');
  });
});

describe('Tensor.asStrided', () => {
  it('needs device storage', () => {
    const t = Tensor.from(new Float32Array(8), [8], 'Float');
    expect(() => t.asStrided([2], [1], 1)).toThrow(/not a device tensor/);
  });
});
