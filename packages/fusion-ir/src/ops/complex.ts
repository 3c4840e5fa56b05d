// Complex construction and parts, with nvFuser's names: complex(real, imag) builds a complex
// tensor from two real ones (BinaryOp `complex`); real(z) and imag(z) read the parts of a complex
// one (UnaryOps `real` / `imag`, giving Float for ComplexFloat and Double for ComplexDouble).

import { complexComponentType, complexTypeOf } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { binaryOp } from './binary.js';
import { describe, fusionOf, toVal, type Operand, type TensorOrScalar } from './operand.js';
import { unaryOp } from './unary.js';

/**
 * complex(real, imag) = real + imag·i (torch.complex). As nvFuser: both operands Float (→
 * ComplexFloat) or both Double (→ ComplexDouble), the same dtype ("real and imag data type should
 * be same in complex()"); cast first otherwise.
 */
export function complex(real: TensorView, imag: Operand): TensorView;
export function complex(real: Operand, imag: TensorView): TensorView;
export function complex(real: Operand, imag: Operand): TensorOrScalar;
export function complex(real: Operand, imag: Operand): TensorOrScalar {
  const fusion = fusionOf('complex', [real, imag]);
  const r = toVal(fusion, real);
  const i = toVal(fusion, imag);
  for (const v of [r, i]) {
    if (v.dtype !== 'Float' && v.dtype !== 'Double') {
      throw new FusionIrError(`complex: real and imag must be Float or Double, got ${describe(v)} (${v.dtype}); cast first`);
    }
  }
  if (r.dtype !== i.dtype) {
    throw new FusionIrError(`complex: real and imag must have the same dtype, got ${describe(r)} (${r.dtype}) and ${describe(i)} (${i.dtype}); cast one first`);
  }
  return binaryOp('complex', r, i, complexTypeOf(r.dtype));
}

/** The real part of a complex tensor or scalar (torch.real). */
export function real(z: TensorView): TensorView;
export function real(z: Scalar): Scalar;
export function real(z: TensorOrScalar): TensorOrScalar {
  return unaryOp('real', z, complexComponentType(z.dtype));
}

/** The imaginary part of a complex tensor or scalar (torch.imag). */
export function imag(z: TensorView): TensorView;
export function imag(z: Scalar): Scalar;
export function imag(z: TensorOrScalar): TensorOrScalar {
  return unaryOp('imag', z, complexComponentType(z.dtype));
}
