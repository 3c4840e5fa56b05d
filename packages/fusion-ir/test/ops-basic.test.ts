import { describe, expect, it } from 'vitest';
import { Fusion, add, broadcast, gt, jsConstantType, makeSymbolicTensor, makeTensor, mul, sum, FusionIrError } from '../src/index.js';

describe('basic ops build the expected IR', () => {
  it('pointwise add of two symbolic tensors', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 2);
    const t1 = makeSymbolicTensor(fusion, 2);
    fusion.addInput(t0);
    fusion.addInput(t1);
    const t2 = add(t0, t1);
    fusion.addOutput(t2);
    expect(t2.dtype).toBe('Float');
    expect(t2.rank()).toBe(2);
    expect(fusion.exprs().map((e) => e.kind)).toEqual(['BinaryOp']);
    expect(t2.definition?.inputs).toEqual([t0, t1]);
    expect(t0.uses.length).toBe(1);
    expect(t2.memoryType).toBe('Global');
  });

  it('sum keepdim inserts a broadcast; bad axis names the tensor', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [-1, -1, -1], dtype: 'Half' });
    fusion.addInput(t0);
    const s = sum(t0, [1], true);
    expect(s.rank()).toBe(3);
    expect(s.getLogicalDomain()[1]?.isBroadcast()).toBe(true);
    expect(() => sum(t0, [3])).toThrow(/axis 3 is out of range for T0/);
    expect(() => add(t0, broadcast(sum(t0, [0]), [true, false, false, true]))).toThrow(FusionIrError);
  });

  it('scalar operands follow result_type', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [-1], dtype: 'Half' });
    expect(mul(t0, 2.5).dtype).toBe('Half');
    const i0 = makeTensor(fusion, { shape: [-1], dtype: 'Int32' });
    expect(mul(i0, 2.5).dtype).toBe('Float');
    expect(mul(i0, 2).dtype).toBe('Int32');
  });

  it('an integral JS number outside int64 is a Double constant, inside it an Int', () => {
    // 1e308 (embedding_fwd's run-time norm_type selection compares with it) was an Int constant,
    // emitted as `1e+308LL`, which NVRTC refused.
    expect(jsConstantType(1e308)).toBe('Double');
    expect(jsConstantType(-1e308)).toBe('Double');
    expect(jsConstantType(2 ** 63)).toBe('Double');
    expect(jsConstantType(-(2 ** 63))).toBe('Int');
    expect(jsConstantType(2 ** 62)).toBe('Int');
    expect(jsConstantType(3)).toBe('Int');
    expect(jsConstantType(-0)).toBe('Double');
    expect(jsConstantType(0.5)).toBe('Double');
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [-1], dtype: 'Double' });
    const cmp = gt(t0, 1e308).definition?.inputs[1];
    expect(cmp?.kind === 'scalar' ? cmp.dtype : null).toBe('Double');
  });
});
