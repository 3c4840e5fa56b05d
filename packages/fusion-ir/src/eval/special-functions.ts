// Special functions in float64 for the reference evaluator: erf, erfc, erfinv, erfcx, lgamma,
// digamma. Own implementations (no libm binding in JS): erf/erfc from the Taylor series near 0
// and a continued fraction in the tail; erfinv by Giles' single-precision approximation refined
// with Newton steps on erf; lgamma by Stirling's series (x ≥ 10, recurrence below, reflection for x < 0.5);
// digamma by recurrence up to x ≥ 10 and the asymptotic series. Relative accuracy ~1e-14 away from
// the zeros of lgamma (x = 1, 2) and digamma (x ≈ 1.4616), where the absolute error is ~1e-15.

export function erf(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x === Infinity) return 1;
  if (x === -Infinity) return -1;
  const ax = Math.abs(x);
  if (x === 0) return x; // keeps −0
  if (ax < 2.5) return erfSeries(x);
  const r = 1 - erfcContinuedFraction(ax);
  return x < 0 ? -r : r;
}

export function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x === Infinity) return 0;
  if (x === -Infinity) return 2;
  if (x < 0.5) return 1 - erf(x);
  return erfcContinuedFraction(x);
}

/** Scaled complementary error function exp(x²)·erfc(x). */
export function erfcx(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x < 0.5) return Math.exp(x * x) * erfc(x);
  if (x > 1e8) return 1 / (Math.sqrt(Math.PI) * x);
  return erfcxContinuedFraction(x);
}

function erfSeries(x: number): number {
  // erf(x) = 2/√π Σ (-1)^n x^(2n+1) / (n! (2n+1))
  let term = x;
  let sum = x;
  const x2 = x * x;
  for (let n = 1; n < 200; n += 1) {
    term *= -x2 / n;
    const add = term / (2 * n + 1);
    sum += add;
    if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}

function erfcxContinuedFraction(x: number): number {
  // erfc(x)·exp(x²) = (1/√π) · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))), Lentz's method.
  const tiny = 1e-300;
  let f = x;
  if (f === 0) f = tiny;
  let c = f;
  let d = 0;
  for (let n = 1; n < 5000; n += 1) {
    const a = n / 2;
    d = x + a * d;
    if (d === 0) d = tiny;
    c = x + a / c;
    if (c === 0) c = tiny;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return 1 / (Math.sqrt(Math.PI) * f);
}

function erfcContinuedFraction(x: number): number {
  return Math.exp(-x * x) * erfcxContinuedFraction(x);
}

export function erfinv(y: number): number {
  if (Number.isNaN(y) || y < -1 || y > 1) return NaN;
  if (y === 1) return Infinity;
  if (y === -1) return -Infinity;
  if (y === 0) return y;
  // Giles (2010) single-precision approximation as the starting point.
  let w = -Math.log((1 - y) * (1 + y));
  let x: number;
  if (w < 5) {
    w -= 2.5;
    let p = 2.81022636e-8;
    p = 3.43273939e-7 + p * w;
    p = -3.5233877e-6 + p * w;
    p = -4.39150654e-6 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
    x = p * y;
  } else {
    w = Math.sqrt(w) - 3;
    let p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
    x = p * y;
  }
  // Newton refinement on erf(x) = y until the step vanishes; in the tails the residual comes from
  // erfc (1 − |y| is exact there), and far out the start can be off enough to need several steps.
  for (let i = 0; i < 50; i += 1) {
    const err = Math.abs(y) > 0.9 ? Math.sign(y) * ((1 - Math.abs(y)) - erfc(Math.abs(x))) : erf(x) - y;
    const deriv = (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x);
    if (deriv === 0 || err === 0) break;
    const step = err / deriv;
    x -= step;
    if (Math.abs(step) <= 1e-17 * Math.abs(x)) break;
  }
  return x;
}

const HALF_LOG_2PI = 0.5 * Math.log(2 * Math.PI);

/** Stirling's series for log Γ(x), x ≥ 10: truncation error below 1e-17. */
function lgammaStirling(x: number): number {
  const inv = 1 / x;
  const inv2 = inv * inv;
  const series =
    inv *
    (1 / 12 -
      inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 * (1 / 1680 - inv2 * (1 / 1188 - inv2 * (691 / 360360 - inv2 * (1 / 156)))))));
  return (x - 0.5) * Math.log(x) - x + HALF_LOG_2PI + series;
}

/** log|Γ(x)|, as std::lgamma (+inf at the poles). */
export function lgamma(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (!Number.isFinite(x)) return Infinity;
  if (x <= 0 && Number.isInteger(x)) return Infinity;
  if (x < 0.5) {
    // Reflection: Γ(x)Γ(1-x) = π / sin(πx); sinpi keeps precision for large |x|.
    return Math.log(Math.PI / Math.abs(sinPi(x))) - lgamma(1 - x);
  }
  if (x >= 10) return lgammaStirling(x);
  // Recurrence Γ(x) = Γ(x + n) / (x (x+1) … (x+n-1)) up to the Stirling range.
  let product = 1;
  let v = x;
  while (v < 10) {
    product *= v;
    v += 1;
  }
  return lgammaStirling(v) - Math.log(product);
}

/** sin(πx) with the argument reduced exactly first. */
function sinPi(x: number): number {
  const r = x % 2; // exact
  return Math.sin(Math.PI * r);
}

/** ψ(x), the logarithmic derivative of Γ; poles at non-positive integers give NaN as torch does (−0 and 0 give ∓inf). */
export function digamma(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x === 0) return Object.is(x, -0) ? Infinity : -Infinity;
  if (x === Infinity) return Infinity;
  if (x === -Infinity) return NaN;
  if (x < 0) {
    if (Number.isInteger(x)) return NaN;
    // Reflection: ψ(1-x) - ψ(x) = π cot(πx)
    return digamma(1 - x) - Math.PI / Math.tan(Math.PI * x);
  }
  // Recurrence ψ(x) = ψ(x+1) − 1/x up to x ≥ 10, then the asymptotic series (Bernoulli
  // numbers up to B14: truncation error below 1e-18 there).
  let result = 0;
  let v = x;
  while (v < 10) {
    result -= 1 / v;
    v += 1;
  }
  const inv = 1 / v;
  const inv2 = inv * inv;
  const series =
    inv2 *
    (1 / 12 -
      inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 * (1 / 132 - inv2 * (691 / 32760 - inv2 * (1 / 12)))))));
  return result + (Math.log(v) - 0.5 * inv - series);
}
