// The segmentation test fusions, built with fusion-ir ops op for op as the python definitions in
// test-fixtures/definitions/ spell them (the tsfuser package's importer cannot be used here: it
// depends on this package). Each returns the fusion and the runtime sizes of its inputs
// (null for scalar inputs).
import {
  Fusion, add, broadcastInDim, cast, exp, makeTensor, max, mul, pow, reciprocal, rsqrt, size, sub, sum, tanh, truediv, varMean,
  type Scalar, type TensorView,
} from '@tsfuser/fusion-ir';

export interface Fixture {
  name: string;
  fusion: Fusion;
  sizes: (number[] | null)[];
}

function tensor(f: Fusion, rank: number, dtype: 'Float' | 'Half' | 'BFloat16' = 'Float'): TensorView {
  const t = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype });
  f.addInput(t);
  return t;
}

/** issue785_pow_sum.py: sum(T4, [0, 1]) and pow(T6, 3), unrelated. */
export function issue785PowSum(sizes = [4, 8, 64]): Fixture {
  const f = new Fusion();
  const t4 = tensor(f, 3);
  const t6 = tensor(f, 3);
  mul(0.5, t6); // T8: dead in the definition too
  const t10 = pow(t6, 3);
  const t19 = sum(t4, [0, 1]);
  f.addOutput(t19);
  f.addOutput(t10);
  return { name: 'issue785_pow_sum', fusion: f, sizes: [sizes, sizes] };
}

/** issue785_gelu_bias_grad.py: gelu backward (pointwise) and an unrelated bias grad sum(T4, [0, 1]). */
export function issue785GeluBiasGrad(sizes = [4, 8, 64]): Fixture {
  const f = new Fusion();
  const s: Scalar[] = [0, 1, 2, 3].map(() => {
    const x = f.newSymbolicScalar('Double');
    f.addInput(x);
    return x;
  });
  const [s0, s1, s2, s3] = s as [Scalar, Scalar, Scalar, Scalar];
  const t4 = tensor(f, 3);
  const t5 = tensor(f, 3);
  const t6 = tensor(f, 3);
  const t8 = mul(0.5, t6);
  const t10 = pow(t6, 3.0);
  const t12 = mul(0.044715, t10);
  const t13 = add(t6, t12);
  const t15 = mul(0.797885, t13);
  const t16 = tanh(t15);
  const t18 = add(1.0, t16);
  const t19 = sum(t4, [0, 1]);
  const t20 = mul(t5, t18);
  const t21 = mul(t5, t8);
  const t23 = mul(1.0, t21);
  const t24 = mul(t16, t16);
  const t26 = sub(1.0, t24);
  const t27 = mul(t23, t26);
  const t28 = mul(t27, s3);
  const t30 = mul(1.0, t28);
  const t31 = mul(t30, s2);
  const t32 = mul(t31, s1);
  const t34 = pow(t6, 2.0);
  const t35 = mul(t32, t34);
  const t36 = add(t30, t35);
  const t37 = mul(t20, s0);
  const t38 = add(t36, t37);
  f.addOutput(t19);
  f.addOutput(t38);
  return { name: 'issue785_gelu_bias_grad', fusion: f, sizes: [null, null, null, null, sizes, sizes, sizes] };
}

/** layer_norm.py: bf16 layer norm over the last dim with var_mean; outputs y, mean, rstd. */
export function layerNorm(n = 8, h = 64): Fixture {
  const f = new Fusion();
  const t0 = tensor(f, 2, 'BFloat16');
  const t1 = tensor(f, 1, 'BFloat16');
  const t2 = tensor(f, 1, 'BFloat16');
  const t3 = cast(t0, 'Float');
  const { var: t4, mean: t5 } = varMean(t3, [1], 0, false);
  const v8 = [size(t0, 0), 1];
  const t9 = broadcastInDim(t4, v8, [0]);
  const t10 = broadcastInDim(t5, v8, [0]);
  const t12 = add(t9, 1e-5);
  const t13 = rsqrt(t12);
  const v14 = [size(t0, 0), size(t0, 1)];
  const t15 = broadcastInDim(t10, v14, [0, 1]);
  const t16 = sub(t3, t15);
  const t17 = broadcastInDim(t13, v14, [0, 1]);
  const t18 = mul(t16, t17);
  const t20 = cast(broadcastInDim(t1, v14, [1]), 'Float');
  const t21 = mul(t18, t20);
  const t23 = cast(broadcastInDim(t2, v14, [1]), 'Float');
  const t24 = add(t21, t23);
  f.addOutput(cast(t24, 'BFloat16'));
  f.addOutput(t10);
  f.addOutput(t13);
  return { name: 'layer_norm', fusion: f, sizes: [[n, h], [h], [h]] };
}

/** rms_norm.py: fp32 rms norm over the last dim; outputs y and rstd. */
export function rmsNorm(n = 6, h = 48): Fixture {
  const f = new Fusion();
  const t0 = tensor(f, 2);
  const t1 = tensor(f, 1);
  const t2 = mul(t0, t0);
  const t3 = sum(t2, [1]);
  const t5 = truediv(t3, size(t0, 1));
  const t9 = broadcastInDim(t5, [size(t0, 0), 1], [0]);
  const t11 = add(t9, 1e-6);
  const t12 = rsqrt(t11);
  const v13 = [size(t0, 0), size(t0, 1)];
  const t15 = mul(t0, broadcastInDim(t12, v13, [0, 1]));
  const t17 = mul(t15, broadcastInDim(t1, v13, [1]));
  f.addOutput(t17);
  f.addOutput(t12);
  return { name: 'rms_norm', fusion: f, sizes: [[n, h], [h]] };
}

/** softmax.py: fp16 softmax over the last of three dims, fp32 math. */
export function softmax(sizes = [2, 4, 40]): Fixture {
  const f = new Fusion();
  const t0 = tensor(f, 3, 'Half');
  const t1 = cast(t0, 'Float');
  const t2 = max(t1, [2]);
  const v6 = [size(t0, 0), size(t0, 1), 1];
  const t7 = broadcastInDim(t2, v6, [0, 1]);
  const t9 = exp(sub(t1, t7));
  const t10 = sum(t9, [2]);
  const t11 = broadcastInDim(t10, v6, [0, 1]);
  const t13 = mul(t9, reciprocal(t11));
  f.addOutput(cast(t13, 'Half'));
  return { name: 'softmax', fusion: f, sizes: [sizes] };
}

/** Two reductions of one tensor over different dims: sum(x, [1]) and sum(x, [0, 1]). */
export function twoReductionPatterns(m = 16, n = 32): Fixture {
  const f = new Fusion();
  const x = tensor(f, 2);
  const y = mul(x, 2);
  f.addOutput(sum(y, [1]));
  f.addOutput(sum(y, [0, 1]));
  return { name: 'two_reduction_patterns', fusion: f, sizes: [[m, n]] };
}

/** (a + 1) * b, pointwise only. */
export function pointwiseOnly(m = 8, n = 9): Fixture {
  const f = new Fusion();
  const a = tensor(f, 2);
  const b = tensor(f, 2);
  f.addOutput(mul(add(a, 1), b));
  return { name: 'pointwise', fusion: f, sizes: [[m, n], [m, n]] };
}
