// Allocation order and expanded inputs in fusion-ir: strideOrder/setStrideOrder build the
// allocation domain nvFuser's stride_order describes, the evaluator lays such outputs out in that
// order, makeTensor's expanded dims read stride-0 inputs, copyInto writes through strides, and
// squeeze/slice take nvFuser's squeeze_expanded / manual_normalization.
import { describe, expect, it } from 'vitest';
import * as ops from '../src/index.js';
import { Fusion, FusionIrError, HostTensor, copyInto, evaluate, makeTensor, withDimOrder } from '../src/index.js';

const iota = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe('stride order', () => {
  it('puts the allocation domain in the order stride_order gives and the evaluator follows it', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1, -1] });
    const y = ops.strideOrder(ops.neg(x), [0, 2, 1]);
    f.addInput(x);
    f.addOutput(y);
    const logical = y.domain.logical;
    expect(y.domain.allocation).toEqual([logical[1], logical[2], logical[0]]);
    const [out] = evaluate(f, [HostTensor.fromValues('Float', [2, 3, 4], iota(24))]) as [HostTensor];
    expect(out.strides).toEqual([1, 8, 2]);
    expect(out.toNumbers()).toEqual(iota(24).map((v) => -v));
  });

  it('wraps negative entries and refuses what is not a permutation', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    expect(() => ops.strideOrder(x, [0, 0])).toThrow(FusionIrError);
    expect(() => ops.strideOrder(x, [0, 0])).toThrow('stride_order: stride_order [0, 0] is not a permutation of 0..1');
    const y = ops.strideOrder(x, [-2, -1]);
    expect(y.domain.allocation).toEqual([y.domain.logical[1], y.domain.logical[0]]);
  });

  it('lays a reduction output out without its reduction dims', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1, -1] });
    const s = ops.sum(x, [1]);
    ops.setStrideOrder(s, [0, 1]);
    f.addInput(x);
    f.addOutput(s);
    const [out] = evaluate(f, [HostTensor.fromValues('Float', [2, 3, 2], iota(12))]) as [HostTensor];
    expect(out.sizes).toEqual([2, 2]);
    expect(out.strides).toEqual([1, 2]);
    expect(out.toNumbers()).toEqual([6, 9, 24, 27]);
  });
});

describe('expanded inputs and in-place writes', () => {
  it('reads an expanded (stride 0) input dim through makeTensor', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], contiguity: [null, true], expanded: [true, false] });
    expect(x.domain.logical[0]?.isBroadcast()).toBe(true);
    f.addInput(x);
    f.addOutput(ops.sum(x, [0]));
    const [out] = evaluate(f, [new HostTensor('Float', [4, 3], [0, 1], new Float32Array([1, 2, 3]))]) as [HostTensor];
    expect(out.toNumbers()).toEqual([4, 8, 12]);
  });

  it('squeezes an expanded dim only when asked', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], expanded: [true, false] });
    expect(() => ops.squeeze(x, [0])).toThrow(/is an expanded broadcast .*squeeze_expanded=True/);
    f.addInput(x);
    f.addOutput(ops.squeeze(x, [0], { squeezeExpanded: true }));
    const [out] = evaluate(f, [new HostTensor('Float', [4, 3], [0, 1], new Float32Array([1, 2, 3]))]) as [HostTensor];
    expect(out.toNumbers()).toEqual([1, 2, 3]);
  });

  it('slices with manual normalization without normalizing the indices', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [6] });
    const y = ops.slice(x, [1], [4], undefined, { manualNormalization: true });
    expect(y.domain.logical[0]?.extent.constNumber()).toBe(3);
    f.addInput(x);
    f.addOutput(y);
    const [out] = evaluate(f, [HostTensor.fromValues('Float', [6], iota(6))]) as [HostTensor];
    expect(out.toNumbers()).toEqual([1, 2, 3]);
  });

  it('copies into a strided destination and lays out in a given dim order', () => {
    const dst = new HostTensor('Float', [2, 2], [1, 3], new Float32Array(6).fill(-1));
    copyInto(dst, HostTensor.fromValues('Float', [2, 2], [1, 2, 3, 4]));
    expect(Array.from(dst.data as Float32Array)).toEqual([1, 3, -1, 2, 4, -1]);
    const t = withDimOrder(HostTensor.fromValues('Float', [2, 3], iota(6)), [1, 0]);
    expect(t.strides).toEqual([1, 2]);
    expect(t.toNumbers()).toEqual(iota(6));
    expect(() => copyInto(dst, HostTensor.fromValues('Float', [4], [1, 2, 3, 4]))).toThrow(/copyInto: sizes \[4\] into \[2, 2\]/);
  });
});
