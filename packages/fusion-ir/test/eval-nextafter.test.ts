// nextafter as PyTorch computes it (nvFuser's test_nextafter asserts equality with
// torch.nextafter): a Float result is one float32 ulp from x towards y (C's nextafterf), a Double
// result one float64 ulp; operands of other dtypes are rounded to the result dtype first. The
// evaluator used to step one double ulp for Float too, which the Float store rounded back to x.
// Expected values written from the IEEE-754 bit patterns (x's bits ± 1).
import { describe, expect, it } from 'vitest';
import { evaluate, Fusion, HostTensor, makeTensor, nextafter, type TensorView } from '../src/index.js';

const f32 = (bits: number): number => new Float32Array(new Uint32Array([bits]).buffer)[0] as number;
const f32Bits = (x: number): number => new Uint32Array(new Float32Array([x]).buffer)[0] as number;

const X = [1, 0, -2, 3, -0, 2 ** -149, Infinity, NaN];

function run(build: (f: Fusion, x: TensorView, y: TensorView) => TensorView, xs: number[], ys: number[], yDtype: 'Float' | 'Double'): number[] {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1], dtype: 'Float' });
  const y = makeTensor(f, { shape: [-1], dtype: yDtype });
  f.addInput(x);
  f.addInput(y);
  f.addOutput(build(f, x, y));
  const [out] = evaluate(f, [HostTensor.fromValues('Float', [xs.length], xs), HostTensor.fromValues(yDtype, [ys.length], ys)]) as HostTensor[];
  return (out as HostTensor).toNumbers();
}

describe('nextafter', () => {
  it('Float tensors step one float32 ulp (nextafterf)', () => {
    const ys = [2, -1, -1, 0, 1, 0, 0, 1];
    const got = run((_f, x, y) => nextafter(x, y) as TensorView, X, ys, 'Float');
    const want = [f32(f32Bits(1) + 1), -f32(1), f32(f32Bits(-2) - 1), f32(f32Bits(3) - 1), f32(1), 0, f32(0x7f7fffff), NaN];
    expect(got).toEqual(want);
  });

  it('a Float tensor and a Float / Double constant: float32 steps, the constant rounded to float32', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1], dtype: 'Float' });
    f.addInput(x);
    f.addOutput(nextafter(x, f.constant(1, 'Float')) as TensorView);
    f.addOutput(nextafter(f.constant(-1, 'Double'), x) as TensorView);
    // 1 + 2^-30 is 1 in float32: nextafter(1, 1 + 2^-30) on Float is 1.
    f.addOutput(nextafter(x, f.constant(1 + 2 ** -30, 'Double')) as TensorView);
    const xs = [1, 0, -2, 3];
    const outs = (evaluate(f, [HostTensor.fromValues('Float', [4], xs)]) as HostTensor[]).map((t) => t.toNumbers());
    expect(outs[0]).toEqual([1, f32(1), f32(f32Bits(-2) - 1), f32(f32Bits(3) - 1)]);
    expect(outs[1]).toEqual([f32(f32Bits(-1) - 1), f32(f32Bits(-1) - 1), f32(f32Bits(-1) + 1), f32(f32Bits(-1) - 1)]);
    expect(outs[2]).toEqual([1, f32(1), f32(f32Bits(-2) - 1), f32(f32Bits(3) - 1)]);
  });

  it('Double results still step one float64 ulp', () => {
    const got = run((_f, x, y) => nextafter(y, x) as TensorView, [2, -1], [1, 0], 'Double');
    expect(got).toEqual([1 + 2 ** -52, -Number.MIN_VALUE]);
  });
});
