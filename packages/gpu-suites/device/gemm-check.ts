// The check of one GEMM suite case (device-gemm-suite): the float64 reference of every output
// element — D, a forward epilogue's aux (GELU pre-activations in D's dtype or the ReLU bit mask),
// the bias gradient — written from the descriptor's documented row-major meaning, each compared
// with the bound of gemm-tolerance.ts. Which roundings may happen follows the epilogue: cuBLASLt's
// GELU / _AUX / backward epilogues may round the GEMM result to a 16-bit D first; a no-algorithm
// fallback (gemm-fallback.ts) stores D between its calls, so its GEMM result and, before an
// activation with a bias, its pre-activation may be rounded too. A bias gradient summed from D
// (DRELU_BGRAD / DGELU_BGRAD: PyTorch's composition sums the stored D) is allowed the sum of
// those elements' bounds. Pure: the caller passes what it downloaded.
// Invariant: the reference never reads the GPU's values; the first mismatch of each output is
// described (with the ReLU mask's neighbourhood), and the worst error is in tolerances.

import type { GemmDtype } from '@tsfuser/device';
import type { GemmCase } from './gemm-cases.js';
import { isFp8 } from './gemm-cases.js';
import { at, type CaseData } from './gemm-case-data.js';
import { geluGrad, tolerance } from './gemm-host.js';
import { expectedElement, reluBitDetermined, type Activation, type ElementSpec, type ElementValues } from './gemm-tolerance.js';

/** What the suite downloaded after the call. */
export interface CaseOutputs {
  /** D decoded, at its ld and batch stride. */
  d: Float64Array;
  /** A forward epilogue's aux as stored (bytes: a mask or D's dtype). */
  aux?: Uint8Array;
  auxValues?: Float64Array;
  /** The bias gradient decoded. */
  biasGradient?: Float64Array;
}

export interface CaseCheck {
  passed: boolean;
  detail: string;
}

const GELU_FORWARD = ['GELU', 'GELU_BIAS', 'GELU_AUX', 'GELU_AUX_BIAS'];
const RELU_FORWARD = ['RELU', 'RELU_BIAS', 'RELU_AUX', 'RELU_AUX_BIAS'];
const WITH_BIAS = ['BIAS', 'RELU_BIAS', 'GELU_BIAS', 'RELU_AUX_BIAS', 'GELU_AUX_BIAS'];

/** The rounding sites and activation of a case's D elements (see the header); `factor` is set per element. */
export function elementSpec(c: GemmCase, fallback: boolean): ElementSpec {
  const e = c.epilogue;
  const d: GemmDtype = c.config.d;
  const sixteenBitD = d === 'BFloat16' || d === 'Half';
  const backward = e.startsWith('DRELU') || e.startsWith('DGELU');
  const forwardAux = e.includes('_AUX');
  const activation: Activation = GELU_FORWARD.includes(e) ? 'gelu' : RELU_FORWARD.includes(e) ? 'relu' : 'none';
  const hasBias = WITH_BIAS.includes(e);
  const epilogueRuns = e !== 'DEFAULT' && e !== 'DEFAULT_C' && e !== 'BGRADA' && e !== 'BGRADB';
  // cuBLASLt rounds where it was seen to (GELU, _AUX, backward); a fallback stores D between its calls.
  const roundsGemmResult = sixteenBitD && epilogueRuns && (fallback || activation === 'gelu' || forwardAux || backward);
  const roundsPreActivation = sixteenBitD && hasBias && activation !== 'none' && (fallback || forwardAux);
  return {
    out: d,
    intermediate: d,
    fp8Inputs: isFp8(c.config),
    k: c.k,
    roundsGemmResult,
    roundsPreActivation,
    activation,
    factor: 1,
    approximatesGelu: e.includes('GELU'),
    scaleD: 1,
  };
}

/** The aux's spec: the pre-activation in D's dtype, rounded once more at most (its storage). */
export function auxSpecOf(spec: ElementSpec): ElementSpec {
  return { ...spec, activation: 'none', roundsPreActivation: false, approximatesGelu: false };
}

/** The exact parts of element (b, r, col) (see ElementValues). */
export function elementValues(c: GemmCase, data: CaseData, b: number, r: number, col: number): ElementValues {
  let acc = 0;
  let products = 0;
  for (let l = 0; l < c.k; l += 1) {
    const term = at(data.A, b, r, l) * at(data.B, b, l, col);
    acc += term;
    products += Math.abs(term);
  }
  const scaleAB = data.scales.a * data.scales.b;
  const cTerm = data.c === undefined ? 0 : data.beta * at(data.c, b, r, col);
  const bias = WITH_BIAS.includes(c.epilogue) ? (data.bias.values[b * data.vector.batchStride + col] as number) : 0;
  return { gemm: acc * scaleAB + cTerm, products: products * scaleAB, cTerm: Math.abs(cTerm), bias };
}

/** A backward epilogue's factor at (b, r, col): the aux's mask bit or gelu'(aux); 1 otherwise. */
export function backwardFactor(c: GemmCase, data: CaseData, b: number, r: number, col: number): number {
  const { aux } = data;
  const index = b * aux.batchStride + r * aux.ld + col;
  if (c.epilogue === 'DRELU' || c.epilogue === 'DRELU_BGRAD') return ((aux.input[index >> 3] as number) >> (index & 7)) & 1;
  if (c.epilogue === 'DGELU' || c.epilogue === 'DGELU_BGRAD') return geluGrad(aux.inputValues?.[index] as number);
  return 1;
}

export function checkCase(c: GemmCase, data: CaseData, got: CaseOutputs, fallback: boolean): CaseCheck {
  const { m, n, k, batch } = c;
  const spec = elementSpec(c, fallback);
  const dSpec: ElementSpec = { ...spec, scaleD: data.scales.d };
  const auxSpec = auxSpecOf(spec);
  const e = c.epilogue;
  const { aux, vector } = data;
  const relu = aux.relu;
  let worst = 0;
  let firstBad = '';
  let firstMask = '';
  const compare = (what: string, gotValue: number, expected: number, tol: number): void => {
    const err = Math.abs(gotValue - expected);
    if (!(err <= tol)) {
      if (firstBad === '') firstBad = `${what}: got ${gotValue}, expected ${expected} (tol ${tol.toExponential(2)})`;
      worst = Number.isNaN(err) ? Infinity : Math.max(worst, err / tol);
    }
  };
  const bits = (bytes: Uint8Array, b: number, r: number, col: number): number => {
    const index = b * aux.batchStride + r * aux.ld + col;
    return ((bytes[index >> 3] as number) >> (index & 7)) & 1;
  };
  // The first mismatching mask element's neighbourhood: 64 bits got vs expected from the row's
  // start (the suite's row-major view: bit b·stride + r·ld + col), and the ld/stride it used.
  const maskDump = (bytes: Uint8Array, b: number, r: number, col: number, v: number): string => {
    const start = Math.max(0, col - (col % 64));
    let gotBits = '';
    for (let j = start; j < Math.min(start + 64, aux.ld); j += 1) gotBits += String(bits(bytes, b, r, j));
    return `; first mask mismatch at [${b},${r},${col}] (pre-activation ${v}); bits ${start}..${start + 63} of row ${r} got ${gotBits}; aux ld ${aux.ld} bits, batch stride ${aux.batchStride} bits`;
  };
  const slots = batch * vector.length;
  const vectorSums = new Float64Array(slots);
  const vectorMagnitude = new Float64Array(slots);
  // A bias gradient summed from D: the sum of its elements' bounds.
  const vectorSlack = new Float64Array(slots);
  const dStride = data.d.batchStride ?? 0;
  for (let b = 0; b < batch; b += 1) {
    for (let r = 0; r < m; r += 1) {
      for (let col = 0; col < n; col += 1) {
        const v = elementValues(c, data, b, r, col);
        if (aux.forward && got.aux !== undefined) {
          if (relu) {
            const pre = v.gemm + v.bias;
            const bit = bits(got.aux, b, r, col);
            // A pre-activation within its error bound of 0 has no determined sign.
            if (bit !== (pre > 0 ? 1 : 0) && reluBitDetermined(auxSpec, v)) {
              if (firstMask === '') firstMask = maskDump(got.aux, b, r, col, pre);
              compare(`aux mask [${b},${r},${col}]`, bit, pre > 0 ? 1 : 0, 0);
            }
          } else {
            const x = expectedElement(auxSpec, v);
            compare(`aux [${b},${r},${col}]`, got.auxValues?.[b * aux.batchStride + r * aux.ld + col] as number, x.value, x.tolerance);
          }
        }
        const factor = backwardFactor(c, data, b, r, col);
        const x = expectedElement({ ...dSpec, factor }, v);
        compare(`D [${b},${r},${col}]`, got.d[b * dStride + r * data.d.ld + col] as number, x.value, x.tolerance);
        if (e === 'DRELU_BGRAD' || e === 'DGELU_BGRAD') {
          const slot = b * vector.batchStride + col;
          vectorSums[slot] = (vectorSums[slot] as number) + x.value;
          vectorMagnitude[slot] = (vectorMagnitude[slot] as number) + 2 * v.products * Math.abs(factor);
          vectorSlack[slot] = (vectorSlack[slot] as number) + x.tolerance;
        }
      }
    }
    if (e === 'BGRADA' || e === 'BGRADB') {
      for (let i = 0; i < vector.length; i += 1) {
        for (let l = 0; l < k; l += 1) {
          const value = e === 'BGRADA' ? at(data.A, b, i, l) : at(data.B, b, l, i);
          vectorSums[i] = (vectorSums[i] as number) + value;
          vectorMagnitude[i] = (vectorMagnitude[i] as number) + Math.abs(value);
        }
      }
    }
  }
  if (got.biasGradient !== undefined) {
    const reduced = e.startsWith('BGRAD') ? k : m;
    for (let i = 0; i < (vector.batchStride === 0 ? vector.length : batch * vector.length); i += 1) {
      const sum = vectorSums[i] as number;
      const tol = tolerance(vector.dtype, sum, (vectorMagnitude[i] as number) * Math.sqrt(reduced), k, spec.approximatesGelu) + (vectorSlack[i] as number);
      compare(`bias gradient [${i}]`, got.biasGradient[i] as number, sum, tol);
    }
  }
  if (firstBad !== '') return { passed: false, detail: `${firstBad}; worst error ${worst.toFixed(1)}× tolerance${firstMask}` };
  return { passed: true, detail: '' };
}
