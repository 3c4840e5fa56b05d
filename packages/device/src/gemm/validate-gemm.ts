// Checks a GemmDescriptor against what cuBLASLt can express, before any native call: integer
// dimensions, leading dimensions and batch strides; op(A)·op(B) shapes (PyTorch's message);
// a consistent batch (broadcast inputs only); dtype combinations; fp8's layout and scales; each
// epilogue's vectors and auxiliary matrix. Invariant: a descriptor that passes has a defined
// m, n, k and batch, and every remaining refusal can only come from cuBLASLt's heuristic (an
// algorithm missing for that configuration on that device), which the library reports with the
// configuration.

import { GemmError } from '../errors.js';
import type { GemmAux, GemmDescriptor, GemmDtype, GemmEpilogue, GemmMatrix, GemmVector } from './gemm-descriptor.js';

export interface GemmShape {
  m: number;
  n: number;
  k: number;
  /** Batch count of D (1 when not batched). */
  batch: number;
}

export function isFloat8(dtype: GemmDtype): boolean {
  return dtype === 'Float8_e4m3fn' || dtype === 'Float8_e5m2';
}

function requireInteger(field: string, value: number | undefined, min: number): number {
  if (value === undefined || !Number.isSafeInteger(value) || value < min) {
    throw new GemmError(field, `must be an integer ≥ ${min}, got ${String(value)}`);
  }
  return value;
}

function requirePointer(field: string, pointer: bigint): void {
  if (typeof pointer !== 'bigint' || pointer <= 0n) throw new GemmError(field, `must be a device pointer (bigint > 0), got ${String(pointer)}`);
}

/** The matrix's rows and cols after `transposed`, with its dimensions checked. */
function checkMatrix(name: string, matrix: GemmMatrix): { rows: number; cols: number; batch: number; stride: number } {
  requirePointer(`${name}.pointer`, matrix.pointer);
  const rows = requireInteger(`${name}.rows`, matrix.rows, 1);
  const cols = requireInteger(`${name}.cols`, matrix.cols, 1);
  const ld = requireInteger(`${name}.ld`, matrix.ld, 1);
  if (ld < cols) throw new GemmError(`${name}.ld`, `${ld} is less than the ${cols} columns of a row-major ${rows}×${cols} matrix`);
  const batch = requireInteger(`${name}.batchCount`, matrix.batchCount ?? 1, 1);
  const stride = requireInteger(`${name}.batchStride`, matrix.batchStride ?? 0, 0);
  return matrix.transposed === true ? { rows: cols, cols: rows, batch, stride } : { rows, cols, batch, stride };
}

function checkDtypes(desc: GemmDescriptor): void {
  const { a, b, d } = desc;
  const fp8 = isFloat8(a.dtype) || isFloat8(b.dtype);
  if (fp8) {
    if (!isFloat8(a.dtype) || !isFloat8(b.dtype)) {
      throw new GemmError('b.dtype', `fp8 GEMMs need both inputs in fp8, got A ${a.dtype} and B ${b.dtype}`);
    }
    if (a.dtype === 'Float8_e5m2' && b.dtype === 'Float8_e5m2') {
      throw new GemmError('b.dtype', 'cuBLASLt has no e5m2 × e5m2 GEMM (one input must be Float8_e4m3fn)');
    }
    // cuBLASLt's fp8 kernels are "TN" only: in this row-major view, A as stored and B transposed.
    if (a.transposed === true || b.transposed !== true) {
      throw new GemmError(
        a.transposed === true ? 'a.transposed' : 'b.transposed',
        'fp8 GEMMs need A not transposed and B transposed (B stored n×k, as a linear weight): cuBLASLt runs fp8 only as "TN"',
      );
    }
    return;
  }
  if (a.dtype !== b.dtype) throw new GemmError('b.dtype', `A is ${a.dtype} but B is ${b.dtype}: inputs must have one dtype`);
  if (isFloat8(d.dtype)) throw new GemmError('d.dtype', `an fp8 output needs fp8 inputs, got ${a.dtype}`);
  if (d.dtype !== a.dtype && !(d.dtype === 'Float' && a.dtype !== 'Float')) {
    throw new GemmError('d.dtype', `${a.dtype} inputs give a ${a.dtype} or Float output, not ${d.dtype}`);
  }
}

function checkScales(desc: GemmDescriptor): void {
  const scales = desc.scales;
  if (scales === undefined) return;
  const rules: [keyof typeof scales, boolean, string][] = [
    ['a', isFloat8(desc.a.dtype), 'A is not fp8'],
    ['b', isFloat8(desc.b.dtype), 'B is not fp8'],
    ['d', isFloat8(desc.d.dtype), 'D is not fp8'],
    ['amaxD', isFloat8(desc.d.dtype), 'D is not fp8'],
  ];
  for (const [key, allowed, why] of rules) {
    const pointer = scales[key];
    if (pointer === undefined) continue;
    requirePointer(`scales.${key}`, pointer);
    if (!allowed) throw new GemmError(`scales.${key}`, `a per-tensor scale needs an fp8 tensor: ${why}`);
  }
  if (desc.fastAccumulate === true && !isFloat8(desc.a.dtype)) throw new GemmError('fastAccumulate', 'applies to fp8 GEMMs only');
}

/** Bias and bias-gradient vectors: dtype as cuBLASLt requires it. */
function checkVector(field: string, vector: GemmVector, desc: GemmDescriptor, gradient: boolean): void {
  requirePointer(`${field}.pointer`, vector.pointer);
  requireInteger(`${field}.batchStride`, vector.batchStride ?? 0, 0);
  if (isFloat8(desc.a.dtype)) {
    if (gradient) throw new GemmError(field, 'cuBLASLt computes no bias gradient in fp8 GEMMs');
    const allowed: GemmDtype[] = desc.d.dtype === 'Half' ? ['Half'] : ['BFloat16', 'Half'];
    if (!allowed.includes(vector.dtype)) {
      throw new GemmError(`${field}.dtype`, `an fp8 GEMM with a ${desc.d.dtype} output takes a ${allowed.join(' or ')} bias, not ${vector.dtype}`);
    }
    return;
  }
  if (vector.dtype !== desc.d.dtype) {
    throw new GemmError(`${field}.dtype`, `must be D's dtype ${desc.d.dtype} (cuBLASLt's rule), got ${vector.dtype}`);
  }
}

function checkAux(field: string, aux: GemmAux, relu: boolean, shape: GemmShape, desc: GemmDescriptor): void {
  requirePointer(`${field}.pointer`, aux.pointer);
  const ld = requireInteger(`${field}.ld`, aux.ld, 1);
  const multiple = relu ? 128 : 8;
  const unit = relu ? 'bits (a ReLU mask)' : 'elements';
  if (ld < shape.n || ld % multiple !== 0) {
    throw new GemmError(`${field}.ld`, `must be a multiple of ${multiple} ${unit} and at least n = ${shape.n}, got ${ld}`);
  }
  const stride = requireInteger(`${field}.batchStride`, aux.batchStride ?? 0, 0);
  if (shape.batch > 1 && (stride % multiple !== 0 || stride < shape.m * ld)) {
    throw new GemmError(`${field}.batchStride`, `a batched aux needs a stride that is a multiple of ${multiple} and at least m·ld = ${shape.m * ld}, got ${stride}`);
  }
  if (relu && aux.dtype !== undefined) throw new GemmError(`${field}.dtype`, 'a ReLU aux is a bit mask and has no dtype');
  if (!relu && aux.dtype !== undefined && aux.dtype !== desc.d.dtype && !isFloat8(desc.a.dtype)) {
    throw new GemmError(`${field}.dtype`, `a GELU aux has D's dtype ${desc.d.dtype} outside fp8 GEMMs, got ${aux.dtype}`);
  }
}

function checkEpilogue(epilogue: GemmEpilogue, shape: GemmShape, desc: GemmDescriptor): void {
  const fp8 = isFloat8(desc.a.dtype);
  switch (epilogue.kind) {
    case 'DEFAULT':
    case 'RELU':
    case 'GELU':
      return;
    case 'BIAS':
    case 'RELU_BIAS':
    case 'GELU_BIAS':
      checkVector('epilogue.bias', epilogue.bias, desc, false);
      return;
    case 'RELU_AUX':
    case 'GELU_AUX':
      checkAux('epilogue.aux', epilogue.aux, epilogue.kind === 'RELU_AUX', shape, desc);
      return;
    case 'RELU_AUX_BIAS':
    case 'GELU_AUX_BIAS':
      checkVector('epilogue.bias', epilogue.bias, desc, false);
      checkAux('epilogue.aux', epilogue.aux, epilogue.kind === 'RELU_AUX_BIAS', shape, desc);
      return;
    case 'DRELU':
    case 'DGELU':
    case 'DRELU_BGRAD':
    case 'DGELU_BGRAD':
      if (fp8) throw new GemmError('epilogue.kind', `${epilogue.kind} (a backward epilogue) is not offered for fp8 inputs here`);
      checkAux('epilogue.aux', epilogue.aux, epilogue.kind === 'DRELU' || epilogue.kind === 'DRELU_BGRAD', shape, desc);
      if (epilogue.kind === 'DRELU_BGRAD' || epilogue.kind === 'DGELU_BGRAD') {
        checkVector('epilogue.biasGradient', epilogue.biasGradient, desc, true);
      }
      return;
    case 'BGRADA':
    case 'BGRADB':
      if (shape.batch > 1) throw new GemmError('epilogue.kind', `${epilogue.kind} has no batched form in cuBLASLt`);
      checkVector('epilogue.biasGradient', epilogue.biasGradient, desc, true);
      return;
    default: {
      const never: never = epilogue;
      throw new GemmError('epilogue.kind', `unknown epilogue ${(never as { kind: string }).kind}`);
    }
  }
}

/** Checks `desc`; returns its m, n, k and batch or throws GemmError naming the field. */
export function validateGemm(desc: GemmDescriptor): GemmShape {
  const a = checkMatrix('a', desc.a);
  const b = checkMatrix('b', desc.b);
  if (a.cols !== b.rows) {
    // PyTorch's wording (at::mm): the shapes as op(A) and op(B) are multiplied.
    throw new GemmError('b', `mat1 and mat2 shapes cannot be multiplied (${a.rows}x${a.cols} and ${b.rows}x${b.cols})`);
  }
  const shape: GemmShape = { m: a.rows, n: b.cols, k: a.cols, batch: Math.max(a.batch, b.batch) };
  if (desc.d.transposed === true) throw new GemmError('d.transposed', 'an output cannot be transposed: give D its row-major layout');
  const d = checkMatrix('d', desc.d);
  if (d.rows !== shape.m || d.cols !== shape.n) {
    throw new GemmError('d', `is ${d.rows}×${d.cols} but op(A)·op(B) is ${shape.m}×${shape.n}`);
  }
  shape.batch = Math.max(shape.batch, d.batch);
  for (const [name, operand] of [['a', a], ['b', b]] as const) {
    if (operand.batch !== 1 && operand.batch !== shape.batch) {
      throw new GemmError(`${name}.batchCount`, `${operand.batch} does not match the batch of ${shape.batch} (1 broadcasts)`);
    }
  }
  if (d.batch !== shape.batch) throw new GemmError('d.batchCount', `must be the GEMM's batch ${shape.batch}, got ${d.batch}`);
  if (shape.batch > 1 && d.stride < (shape.m - 1) * desc.d.ld + shape.n) {
    throw new GemmError('d.batchStride', `${d.stride} makes the batch's outputs overlap (each spans ${(shape.m - 1) * desc.d.ld + shape.n} elements)`);
  }
  checkDtypes(desc);
  if (desc.c !== undefined) {
    if (desc.c.transposed === true) throw new GemmError('c.transposed', 'C cannot be transposed');
    const c = checkMatrix('c', desc.c);
    if (c.rows !== shape.m || c.cols !== shape.n) throw new GemmError('c', `is ${c.rows}×${c.cols} but D is ${shape.m}×${shape.n}`);
    if (c.batch !== shape.batch) throw new GemmError('c.batchCount', `must be the GEMM's batch ${shape.batch}, got ${c.batch}`);
    const expected = isFloat8(desc.d.dtype) ? ['BFloat16', 'Half'] : [desc.d.dtype];
    if (!expected.includes(desc.c.dtype)) throw new GemmError('c.dtype', `must be ${expected.join(' or ')} for a ${desc.d.dtype} D, got ${desc.c.dtype}`);
    if (desc.c.pointer === desc.d.pointer && (desc.c.ld !== desc.d.ld || (desc.c.batchStride ?? 0) !== (desc.d.batchStride ?? 0))) {
      throw new GemmError('c.ld', 'C at D\'s address (in place) must have D\'s ld and batch stride');
    }
  }
  for (const [field, value] of [['alpha', desc.alpha ?? 1], ['beta', desc.beta ?? 0]] as const) {
    if (!Number.isFinite(value)) throw new GemmError(field, `must be a finite number, got ${value}`);
  }
  if ((desc.beta ?? 0) !== 0 && desc.c === undefined && isFloat8(desc.d.dtype)) {
    throw new GemmError('beta', 'an fp8 D cannot be accumulated into: give C (BFloat16 or Half)');
  }
  if (desc.allowTf32 === true && desc.a.dtype !== 'Float') throw new GemmError('allowTf32', `applies to Float inputs only, not ${desc.a.dtype}`);
  checkScales(desc);
  checkEpilogue(desc.epilogue ?? { kind: 'DEFAULT' }, shape, desc);
  return shape;
}
