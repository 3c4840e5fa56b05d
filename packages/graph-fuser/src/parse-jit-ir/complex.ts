// Lowerings of the complex ops PyTorch's tracer and scripting emit (the arithmetic, abs and the
// predicates on complex tensors are the pointwise table's, which fusion-ir defines on complex):
//   aten::complex(re, im)          → complex(re, im) (both Float or both Double, broadcast)
//   aten::real / aten::imag        → real / imag (real of a real tensor is the tensor itself)
//   aten::angle                    → atan2(imag, real) on complex; on a real tensor PyTorch's
//                                    π where x < 0, 0 elsewhere, NaN kept (integers as Float)
//   aten::conj, aten::_conj (what a trace records for conj), aten::conj_physical
//                                  → complex(real, −imag); a real tensor is itself
//   aten::resolve_conj             → the tensor (a conjugate here is always materialized)
//   aten::view_as_real             → [..., 2]: real and imag on a new last dim (where over iota(2))
//   aten::view_as_complex          → complex(x[..., 0], x[..., 1]) (select)
// The views become copies: a fusion's values have no aliasing. An op fusion-ir refuses on complex
// (a scan, prod, a comparison) is an error naming the node and its source position.

import {
  atan2, broadcast, cast, complex, eq, imag, iota, isComplexType, isFloatingType, isnan, lt, neg, real, select, set, where,
  type TensorView,
} from '@tsfuser/fusion-ir';
import type { NodeArgs } from './args.js';
import type { OpTableSection } from './op-entry.js';
import { broadcastOperands, isTensor, out } from './operands.js';

function lowerComplex(args: NodeArgs): TensorView {
  const [re, im] = broadcastOperands([args.tensor('real'), args.tensor('imag')]);
  if (re === undefined || im === undefined || !isTensor(re) || !isTensor(im)) return args.fail('expected two tensors');
  return complex(re, im);
}

/** torch.angle: the argument of a complex number; of a real one π for negatives, 0 otherwise, NaN for NaN. */
function lowerAngle(x: TensorView): TensorView {
  if (isComplexType(x.dtype)) return atan2(imag(x), real(x));
  const f = isFloatingType(x.dtype) ? x : cast(x, 'Float');
  const sign = cast(where(lt(f, 0), Math.PI, 0) as TensorView, f.dtype);
  return where(isnan(f), f, sign) as TensorView;
}

function lowerConj(x: TensorView): TensorView {
  return isComplexType(x.dtype) ? complex(real(x), neg(imag(x))) : set(x);
}

/**
 * view_as_real: [..., 2] with the real parts at [..., 0] and the imaginary parts at [..., 1]:
 * where(lane == 0, real, imag) over a new last dim whose lane index is iota(2), the parts
 * broadcast along it (a cat of broadcast dims is not schedulable; this is one pointwise op).
 */
function lowerViewAsReal(args: NodeArgs): TensorView {
  const z = args.tensor('self');
  if (!isComplexType(z.dtype)) return args.fail(`view_as_real is only supported for complex tensors, got ${z.dtype}`);
  const rank = z.rank();
  const part = (t: TensorView): TensorView => broadcast(t, [...new Array<boolean>(rank).fill(false), true]);
  const lane = broadcast(iota(z.fusion, 2), [...new Array<boolean>(rank).fill(true), false]);
  return where(eq(lane, 0), part(real(z)), part(imag(z))) as TensorView;
}

/** view_as_complex: the last dim (size 2) as (real, imag) pairs. */
function lowerViewAsComplex(args: NodeArgs): TensorView {
  const x = args.tensor('self');
  if (x.dtype !== 'Float' && x.dtype !== 'Double') return args.fail(`view_as_complex is only supported for Float and Double tensors, got ${x.dtype}`);
  if (x.rank() === 0) return args.fail('view_as_complex needs a tensor whose last dim has size 2, got a 0-dim tensor');
  const d = x.rank() - 1;
  return complex(select(x, d, 0), select(x, d, 1));
}

export const COMPLEX_OPS: OpTableSection = {
  'aten::complex': { schemas: ['aten::complex(Tensor real, Tensor imag) -> Tensor'], lower: (args) => out(lowerComplex(args)) },
  'aten::real': {
    schemas: ['aten::real(Tensor(a) self) -> Tensor(a)'],
    lower: (args) => {
      const x = args.tensor('self');
      return out(isComplexType(x.dtype) ? real(x) : set(x));
    },
  },
  'aten::imag': { schemas: ['aten::imag(Tensor(a) self) -> Tensor(a)'], lower: (args) => out(imag(args.tensor('self'))) },
  'aten::angle': { schemas: ['aten::angle(Tensor self) -> Tensor'], lower: (args) => out(lowerAngle(args.tensor('self'))) },
  'aten::conj': { schemas: ['aten::conj(Tensor(a) self) -> Tensor(a)'], lower: (args) => out(lowerConj(args.tensor('self'))) },
  'aten::_conj': { schemas: ['aten::_conj(Tensor(a) self) -> Tensor(a)'], lower: (args) => out(lowerConj(args.tensor('self'))) },
  'aten::conj_physical': { schemas: ['aten::conj_physical(Tensor self) -> Tensor'], lower: (args) => out(lowerConj(args.tensor('self'))) },
  'aten::resolve_conj': { schemas: ['aten::resolve_conj(Tensor(a) self) -> Tensor(a)'], lower: (args) => out(set(args.tensor('self'))) },
  'aten::view_as_real': { schemas: ['aten::view_as_real(Tensor(a) self) -> Tensor(a)'], lower: (args) => out(lowerViewAsReal(args)) },
  'aten::view_as_complex': { schemas: ['aten::view_as_complex(Tensor(a) self) -> Tensor(a)'], lower: (args) => out(lowerViewAsComplex(args)) },
};
