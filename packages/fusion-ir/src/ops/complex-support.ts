// Which ops accept complex operands. PyTorch defines arithmetic, the elementwise transcendental
// functions, equality, where, casts and sums on complex tensors, and refuses ordering (lt, max,
// clamp …), rounding, bitwise and most special functions ("not implemented for 'ComplexFloat'").
// tsfuser supports the subset below, at definition time: any other op with a complex operand is
// one FusionIrError naming the op and the dtype, never a wrong value later.

import { isComplexType, isFloatingType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import { describe, type TensorOrScalar } from './operand.js';

/** Pointwise ops defined on complex operands (by their nvFuser op names). */
const COMPLEX_POINTWISE: ReadonlySet<string> = new Set([
  'add', 'sub', 'mul', 'div', 'truediv', 'neg', 'abs', 'reciprocal', 'exp', 'log', 'sqrt', 'rsqrt', 'sin', 'cos', 'tanh',
  'eq', 'ne', 'where', 'cast', 'real', 'imag', 'isfinite', 'isinf', 'isnan', 'isreal',
]);

/** Reductions defined on complex inputs. */
const COMPLEX_REDUCTIONS: ReadonlySet<string> = new Set(['add']);

function firstComplex(operands: readonly TensorOrScalar[]): TensorOrScalar | undefined {
  return operands.find((o) => isComplexType(o.dtype));
}

/** Refuses a pointwise op that PyTorch / tsfuser does not define on complex operands. */
export function checkComplexPointwise(op: string, operands: readonly TensorOrScalar[]): void {
  const c = firstComplex(operands);
  if (op === 'complex') {
    const bad = operands.find((o) => !isFloatingType(o.dtype));
    if (bad !== undefined) throw new FusionIrError(`complex: real and imag must be floating point (Half, BFloat16, Float, Double), got ${describe(bad)} (${bad.dtype})`);
    return;
  }
  if ((op === 'real' || op === 'imag') && c === undefined) {
    const x = operands[0];
    throw new FusionIrError(`${op}: needs a complex input (ComplexFloat or ComplexDouble), got ${x === undefined ? 'nothing' : `${describe(x)}`}`);
  }
  if (c !== undefined && !COMPLEX_POINTWISE.has(op)) {
    throw new FusionIrError(`${op}: not supported for complex dtype ${c.dtype} (operand ${describe(c)})`);
  }
}

/** Refuses a reduction other than sum on a complex input. */
export function checkComplexReduction(op: string, input: TensorOrScalar): void {
  if (isComplexType(input.dtype) && !COMPLEX_REDUCTIONS.has(op)) {
    const name = op === 'add' ? 'sum' : op === 'mul' ? 'prod' : op;
    throw new FusionIrError(`${name}: not supported for complex dtype ${input.dtype} (input ${describe(input)}); only sum reduces complex tensors`);
  }
}

/** Refuses any complex operand (ops with no complex support at all: scans, sorts, indexing, RNG …). */
export function checkNoComplex(op: string, operands: readonly TensorOrScalar[]): void {
  const c = firstComplex(operands);
  if (c !== undefined) throw new FusionIrError(`${op}: not supported for complex dtype ${c.dtype} (operand ${describe(c)})`);
}
