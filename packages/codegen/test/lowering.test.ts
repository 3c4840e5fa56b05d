// Lowering structure: loop nests, predicates present iff a split is non-divisible, index
// expressions for strided and broadcast tensors, argument packing.
import { add, Fusion, makeTensor, mul } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { argumentLayout, compileFusion, iadd, iconst, idiv, imod, imul, isym, printIndex } from '../src/index.js';
import { broadcastAddMul } from '@tsfuser/test-support';

function addFusion(): Fusion {
  const f = new Fusion();
  const a = makeTensor(f, { shape: [-1, -1] });
  const b = makeTensor(f, { shape: [-1, -1] });
  f.addInput(a);
  f.addInput(b);
  f.addOutput(add(a, b));
  return f;
}

describe('lowering', () => {
  it('divisible sizes: vectorized, no predicates; odd sizes: predicated, scalar', () => {
    const f = addFusion();
    const even = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [1024, 1024] }, { sizes: [1024, 1024] }]));
    expect(even.vectorizeFactor).toBe(4);
    expect(even.dumps.cuda).not.toContain('if (');
    expect(even.dumps.cuda).toContain('loadGlobalToLocalEvictLastL2<float, 4>');
    expect(even.dumps.cuda).toContain('loadLocalToGlobal<float, 4>');
    const odd = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [1023, 7] }, { sizes: [1023, 7] }]));
    expect(odd.vectorizeFactor).toBe(1);
    expect(odd.dumps.cuda).toContain('if (');
  });

  it('misaligned pointer disables vectorization', () => {
    const f = addFusion();
    const k = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [1024, 1024], alignment: 4 }, { sizes: [1024, 1024] }]));
    expect(k.vectorizeFactor).toBe(1);
  });

  it('broadcast dims index 0 and strided inputs use their strides', () => {
    const f = broadcastAddMul();
    const k = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [4, 1, 6], strides: [12, 6, 2] }, { sizes: [4, 5, 6] }]));
    // T0 is declared contiguous but its kernel reads strides for non-innermost dims; dim 1 (broadcast) never appears.
    expect(k.dumps.cuda).not.toContain('T0.alloc_stride[1]');
    expect(k.dumps.kernelIr).toContain('T0_g[');
  });

  it('unrolled loop nest with input loads hoisted ahead of compute', () => {
    const f = new Fusion();
    const a = makeTensor(f, { shape: [-1] });
    f.addInput(a);
    f.addOutput(mul(a, 2));
    const k = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [1 << 26] }]));
    expect(k.params.schedulerType === 'pointwise' ? k.params.unrollFactorInner : 0).toBeGreaterThan(1);
    const ir = k.dumps.kernelIr;
    const firstLoad = ir.indexOf('vector<4> evict_last_l2 T0_g');
    const firstCompute = ir.indexOf('mul(');
    expect(firstLoad).toBeGreaterThan(0);
    expect(firstLoad).toBeLessThan(firstCompute);
    expect(ir).toContain('(unroll)');
  });

  it('index simplification', () => {
    const x = isym('x', 4);
    expect(printIndex(imod(x, iconst(4)))).toBe('x');
    expect(printIndex(idiv(x, iconst(4)))).toBe('0');
    const n = isym('n');
    const y = isym('y', 8);
    expect(printIndex(idiv(iadd(imul(x, iconst(8)), y), iconst(8)))).toBe('x');
    expect(printIndex(imod(iadd(imul(n, iconst(8)), y), iconst(8)))).toBe('y');
    expect(printIndex(imul(iadd(x, n), iconst(3)))).toBe('(x + n) * 3');
  });

  it('lays kernel arguments out in the CUDA ABI layout (packing: runtime pack-kernel-arguments.test.ts)', () => {
    const f = addFusion();
    const k = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [8, 8] }, { sizes: [8, 8] }]));
    expect(k.args.size).toBe(3 * 24);
    expect(k.args.slots.map((s) => s.offset)).toEqual([0, 24, 48]);
    const layout = argumentLayout([{ kind: 'scalar', name: 'b', dtype: 'Bool', role: 'input', position: 0 }, { kind: 'scalar', name: 'd', dtype: 'Double', role: 'input', position: 1 }], 'Int');
    expect(layout.slots.map((s) => s.offset)).toEqual([0, 8]);
  });
});

describe('pow by a small constant', () => {
  it('emits products for exponents 2 and 3 and powf otherwise', async () => {
    const { Fusion, makeTensor, pow } = await import('@tsfuser/fusion-ir');
    const { makeRuntimeInfo } = await import('@tsfuser/scheduler');
    const { compileFusion } = await import('../src/index.js');
    const f = new Fusion();
    const a = makeTensor(f, { shape: [-1] });
    f.addInput(a);
    f.addOutput(pow(a, 3));
    f.addOutput(pow(a, 2.0));
    f.addOutput(pow(a, 2.5));
    const cuda = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [1000] }])).dumps.cuda;
    expect(cuda).toMatch(/= \((T\d+)\[0\] \* \1\[0\] \* \1\[0\]\);/);
    expect(cuda).toMatch(/= \((T\d+)\[0\] \* \1\[0\]\);/);
    expect(cuda).toContain('nvf_pow(');
  });
});
