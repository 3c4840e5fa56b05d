// The error model of one output element of the GEMM suite (device-gemm-suite): the exact
// (float64) reference of what is stored, and a bound on |stored − reference| built from the
// computation's own error sources, each from its magnitude and its dtype's unit roundoff:
//   1. the accumulation of K products: f32 (a probabilistic 4·√K·2^-23 bound of the sum of
//      |terms|, as before) and, for fp8 inputs, the tensor cores' reduced-precision accumulation
//      (Hopper's fp8 MMA keeps about 14 bits of the running sum — DeepSeek-V3 report §3.3.2; the
//      H200 run s6-final-gemm-fallbacks.log, seed 1896362067, measured errors up to 2^-14.5 of
//      the sum of |terms|): FP8_ACCUMULATION_ROUNDOFF of it;
//   2. intermediate roundings to D's dtype, where they may happen: cuBLASLt's GELU and _AUX
//      epilogues round the GEMM result before the bias (not for every algorithm: a 1×1×1 bf16
//      RELU_AUX_BIAS did not), a no-algorithm fallback stores D between its two calls and its
//      second pass may round the pre-activation again — each a bound u·|value| on the value as
//      the GPU holds it (the exact value plus the error so far), not a guess of its direction;
//   3. the activation carries the pre-activation's error with its slope (ReLU 1; GELU its
//      derivative at the reference plus its curvature over the error), a backward epilogue with
//      its factor (mask bit, gelu'(aux)); cuBLASLt's GELU (tanh in f32) adds its own slack;
//   4. the final rounding of the stored value (2·u·|value| + the subnormal step).
// A bias gradient summed from the stored D is bounded by the sum of those D elements' bounds.
// Invariant: every bound is a function of the reference's magnitudes, never of the GPU's value.

import type { GemmDtype } from '@tsfuser/device';
import { gelu, geluGrad, subnormalSpacing, unitRoundoff } from './gemm-host.js';

/** Unit roundoff of the fp8 tensor-core accumulation relative to the sum of |terms| (see the header: 2× the largest error measured). */
export const FP8_ACCUMULATION_ROUNDOFF = 2 ** -13;
/** max |gelu'(x)| of the tanh GELU (≈ 1.1289 near x = 1.5). */
export const GELU_SLOPE_BOUND = 1.13;
/** max |gelu''(x)| of the tanh GELU (≈ 0.798 at x = 0). */
export const GELU_CURVATURE_BOUND = 0.8;

export type Activation = 'none' | 'relu' | 'gelu';

/** Where the element's computation may round and what follows the GEMM. */
export interface ElementSpec {
  /** The stored element's dtype. */
  out: GemmDtype;
  /** The dtype intermediate values are rounded to (D's). */
  intermediate: GemmDtype;
  fp8Inputs: boolean;
  k: number;
  /** The GEMM result may be rounded to `intermediate` before the bias and activation. */
  roundsGemmResult: boolean;
  /** The pre-activation (GEMM result + bias) may be rounded to `intermediate` before the activation. */
  roundsPreActivation: boolean;
  activation: Activation;
  /** A backward epilogue's factor (the ReLU mask bit, gelu'(aux)); 1 otherwise. */
  factor: number;
  /** The element's GELU is cuBLASLt's (tanh in f32): its slack applies (DGELU's gelu'(aux) too). */
  approximatesGelu: boolean;
  /** The fp8 D scale (1 otherwise). */
  scaleD: number;
}

/** The exact parts of the element. */
export interface ElementValues {
  /** alpha·Σ a·b·scaleA·scaleB + beta·C, in float64. */
  gemm: number;
  /** Σ |a·b|·scaleA·scaleB. */
  products: number;
  /** |beta·C|. */
  cTerm: number;
  /** The bias added before the activation (0 without). */
  bias: number;
}

/** Bound on the accumulation's error (see the header, 1). */
export function accumulationError(v: ElementValues, k: number, fp8Inputs: boolean): number {
  const f32 = 8 * Math.sqrt(k) * 2 ** -23 * (v.products + v.cTerm + Math.abs(v.bias));
  return fp8Inputs ? f32 + FP8_ACCUMULATION_ROUNDOFF * v.products : f32;
}

/** The exact pre-activation and a bound on the error of the one the GPU activates (header, 1-2). */
export function preActivation(spec: ElementSpec, v: ElementValues): { pre: number; error: number } {
  const u = unitRoundoff(spec.intermediate);
  const step = subnormalSpacing(spec.intermediate);
  let error = accumulationError(v, spec.k, spec.fp8Inputs);
  if (spec.roundsGemmResult) error += u * (Math.abs(v.gemm) + error) + step;
  const pre = v.gemm + v.bias;
  if (spec.roundsPreActivation) error += u * (Math.abs(pre) + error) + step;
  return { pre, error };
}

export function activate(a: Activation, x: number): number {
  switch (a) {
    case 'none':
      return x;
    case 'relu':
      return Math.max(x, 0);
    case 'gelu':
      return gelu(x);
    default: {
      const never: never = a;
      throw new Error(`unknown activation ${String(never)}`);
    }
  }
}

/** A bound on |act(x + d) − act(x)| / |d| over |d| ≤ e (header, 3). */
export function activationSlope(a: Activation, x: number, e: number): number {
  switch (a) {
    case 'none':
    case 'relu':
      return 1;
    case 'gelu':
      return Math.min(GELU_SLOPE_BOUND, Math.abs(geluGrad(x)) + GELU_CURVATURE_BOUND * e);
    default: {
      const never: never = a;
      throw new Error(`unknown activation ${String(never)}`);
    }
  }
}

/** The stored element's exact reference and the allowed |stored − reference| (header, 1-4). */
export function expectedElement(spec: ElementSpec, v: ElementValues): { value: number; tolerance: number } {
  const { pre, error } = preActivation(spec, v);
  const activated = activate(spec.activation, pre);
  const value = activated * spec.factor * spec.scaleD;
  const scale = Math.abs(spec.factor) * spec.scaleD;
  const propagated = activationSlope(spec.activation, pre, error) * error * scale;
  // cuBLASLt's GELU evaluates tanh in f32 (approximately): relative slack, as the suite always had.
  const epilogue = spec.approximatesGelu ? 2e-3 * (Math.abs(value) + 1e-3 * v.products * scale) + 1e-6 : 0;
  const final = 2 * unitRoundoff(spec.out) * Math.abs(value) + subnormalSpacing(spec.out);
  return { value, tolerance: final + propagated + epilogue + 1e-30 };
}

/** Whether a ReLU mask bit is determined: the pre-activation is farther from 0 than its error bound. */
export function reluBitDetermined(spec: ElementSpec, v: ElementValues): boolean {
  const { pre, error } = preActivation(spec, v);
  return Math.abs(pre) > error;
}
