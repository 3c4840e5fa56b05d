// Composite pointwise ops built from unary/binary/ternary ops (no new Expr kinds): compound
// arithmetic (addcmul, addcdiv, addAlpha, subAlpha, square), activations (leakyRelu, softplus,
// hardtanh), activation backward formulas (as PyTorch's derivatives.yaml), dropout (rand_like
// in training). linear is a LinearOp now (ops/matmul.ts).

import { isFloatingType, isReducedFloat } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import type { TensorView } from '../ir/tensor-view.js';
import { set } from './alias.js';
import { add, gt, le, lt, mul, sub, truediv } from './binary.js';
import { randLike, type RngOptions } from './random.js';
import { toVal, type Operand, type TensorOrScalar } from './operand.js';
import { clamp, where } from './ternary.js';
import { cast, erf, exp, log1p, sigmoid, tanh } from './unary.js';

type ValueLike = TensorOrScalar | number;

/** addcmul(t, a, b, value = 1) = t + value * a * b (torch.addcmul). */
export function addcmul(t: TensorView, a: Operand, b: Operand, value: ValueLike = 1): TensorView {
  return add(t, mul(value, mul(toVal(t.fusion, a), toVal(t.fusion, b)))) as TensorView;
}

/** addcdiv(t, a, b, value = 1) = t + value * a / b, with true division (torch.addcdiv). */
export function addcdiv(t: TensorView, a: Operand, b: Operand, value: ValueLike = 1): TensorView {
  return add(t, mul(value, truediv(toVal(t.fusion, a), toVal(t.fusion, b)))) as TensorView;
}

/** addAlpha(a, b, alpha) = a + alpha * b (torch.add with alpha). */
export function addAlpha(a: TensorView, b: Operand, alpha: ValueLike): TensorView {
  return add(a, mul(b, alpha)) as TensorView;
}

/** subAlpha(a, b, alpha) = a - alpha * b (torch.sub with alpha). */
export function subAlpha(a: TensorView, b: Operand, alpha: ValueLike): TensorView {
  return sub(a, mul(b, alpha)) as TensorView;
}

/** square(x) = x * x. */
export function square(x: TensorView): TensorView {
  return mul(x, x);
}

/** leakyRelu(x, negativeSlope = 0.01) = x where x > 0, else x * negativeSlope. */
export function leakyRelu(x: TensorView, negativeSlope: ValueLike = 0.01): TensorView {
  return where(gt(x, 0), x, mul(x, negativeSlope)) as TensorView;
}

/** softplus(x, beta = 1, threshold = 20) = x where x * beta > threshold, else log1p(exp(x * beta)) / beta. */
export function softplus(x: TensorView, beta: ValueLike = 1, threshold: ValueLike = 20): TensorView {
  const bx = mul(x, beta);
  return where(gt(bx, threshold), x, truediv(log1p(exp(bx)), beta)) as TensorView;
}

/** hardtanh(x, minVal = -1, maxVal = 1) = clamp(x, minVal, maxVal). */
export function hardtanh(x: TensorView, minVal: ValueLike = -1, maxVal: ValueLike = 1): TensorView {
  return clamp(x, minVal, maxVal);
}

/** Backward formulas compute in Float for Half/BFloat16 operands and cast back to grad's dtype. */
function upcast(t: TensorView): TensorView {
  return isReducedFloat(t.dtype) ? cast(t, 'Float') : t;
}
function downcast(t: TensorView, like: TensorView): TensorView {
  return t.dtype === like.dtype ? t : cast(t, like.dtype);
}

const SQRT1_2 = Math.SQRT1_2;
const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);
const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);
const GELU_KAPPA = 0.044715;

/**
 * geluBackward(grad, x, approximate): d gelu(x)/dx * grad.
 * 'none': cdf + x * pdf with cdf = 0.5 * (1 + erf(x / √2)), pdf = exp(-x² / 2) / √(2π).
 * 'tanh': with u = √(2/π) * (x + 0.044715 x³), t = tanh(u):
 *   0.5 * (1 + t) + 0.5 * x * (1 - t²) * √(2/π) * (1 + 3 * 0.044715 x²).
 */
export function geluBackward(grad: TensorView, x: TensorView, approximate: 'none' | 'tanh' = 'none'): TensorView {
  const g = upcast(grad);
  const xf = upcast(x);
  const x2 = mul(xf, xf);
  let dydx: TensorView;
  if (approximate === 'tanh') {
    const t = tanh(mul(add(xf, mul(mul(x2, xf), GELU_KAPPA)), SQRT_2_OVER_PI));
    const left = mul(add(t, 1), 0.5);
    const right = mul(mul(mul(xf, 0.5), sub(1, mul(t, t))), mul(add(mul(x2, 3 * GELU_KAPPA), 1), SQRT_2_OVER_PI));
    dydx = add(left, right);
  } else {
    const cdf = mul(add(erf(mul(xf, SQRT1_2)), 1), 0.5);
    const pdf = mul(exp(mul(x2, -0.5)), INV_SQRT_2PI);
    dydx = add(cdf, mul(xf, pdf));
  }
  return downcast(mul(g, dydx), grad);
}

/** siluBackward(grad, x) = grad * s * (1 + x * (1 - s)), s = sigmoid(x). */
export function siluBackward(grad: TensorView, x: TensorView): TensorView {
  const xf = upcast(x);
  const s = sigmoid(xf);
  return downcast(mul(upcast(grad), mul(s, add(mul(xf, sub(1, s)), 1))), grad);
}

/** sigmoidBackward(grad, y) = grad * y * (1 - y), y the sigmoid output (torch.sigmoid_backward). */
export function sigmoidBackward(grad: TensorView, y: TensorView): TensorView {
  const yf = upcast(y);
  return downcast(mul(upcast(grad), mul(yf, sub(1, yf))), grad);
}

/** tanhBackward(grad, y) = grad * (1 - y²), y the tanh output (torch.tanh_backward). */
export function tanhBackward(grad: TensorView, y: TensorView): TensorView {
  const yf = upcast(y);
  return downcast(mul(upcast(grad), sub(1, mul(yf, yf))), grad);
}

/** thresholdBackward(grad, x, threshold) = 0 where x <= threshold, else grad (torch.threshold_backward). */
export function thresholdBackward(grad: TensorView, x: TensorView, threshold: ValueLike): TensorView {
  return where(le(x, threshold), 0, grad) as TensorView;
}

/** reluBackward(grad, y) = thresholdBackward(grad, y, 0), y the relu output. */
export function reluBackward(grad: TensorView, y: TensorView): TensorView {
  return thresholdBackward(grad, y, 0);
}

/**
 * dropout(x, p, training, rng): inference (training = false) or p = 0 is the identity (a set
 * copy). Training: nvFuser's composite — keep = 1 − p, mask = rand_like(x) < keep,
 * out = (x · mask) · scale with scale = 1 / keep (0 when p = 1), each product rounded to x's
 * dtype as nvFuser's are; `rng` passes rng_seed / rng_offset to the rand_like (random.ts).
 */
export function dropout(x: TensorView, p: number, training: boolean, rng: RngOptions = {}): TensorView {
  if (!(p >= 0 && p <= 1)) throw new FusionIrError(`dropout: probability ${p} is not in [0, 1]`);
  if (!training || p === 0) return set(x);
  const keep = 1 - p;
  const scale = keep === 0 ? 0 : 1 / keep;
  const mask = lt(randLike(upcastForRandom(x), rng), keep);
  return mul(mul(x, mask), scale);
}

/** rand_like needs a floating input: ints and bools draw Float numbers. */
function upcastForRandom(x: TensorView): TensorView {
  return isFloatingType(x.dtype) ? x : cast(x, 'Float');
}
