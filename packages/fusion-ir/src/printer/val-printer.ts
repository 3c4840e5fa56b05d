// How nvFuser writes values (its Val::toString / toInlineString of 2023, the format of the
// issue-785 dumps):
//   TensorView   T3_g[ iS9{i4}, rS10{i5}, bS11{1} ] ca_pos( 2 ) produce_pos( 2 )  (loop domain)
//   IterDomain   <iter type><parallel type><name>{<extent inline>}[rf], e.g. iblockIdx.x30{( ceilDiv(i0, 4) )}
//   Scalar       symbolic by name (`i0`, `d116`, `b2`, `blockDim.x`); constants typed when
//                floating (`double(3)`, `float(0)`), bare when integral (`4`), `true`/`false`.
// "Inline" prints a scalar that has a definition as its expression in parentheses, which is how
// extents of split/merged IterDomains appear: `( ceilDiv(( i4 * i5 ), 4) )`.

import { cppTypeName, isFloatingType, type DataType } from '../ir/data-type.js';
import type { Expr } from '../ir/expr.js';
import type { IterDomain } from '../ir/iter-domain.js';
import { Complex } from '../ir/complex-value.js';
import type { Scalar, ScalarValue } from '../ir/scalar.js';
import type { TensorDomain } from '../ir/tensor-domain.js';
import type { TensorView } from '../ir/tensor-view.js';
import { iterTypePrefix, memoryTypeSuffix, parallelTypeShortName } from '../ir/types.js';
import type { BinaryOpType, UnaryOpType } from '../ir/op-types.js';
import type { Val } from '../ir/val.js';
import { formatCppFloat, maxDigits10 } from './number-format.js';
import {
  binaryFunctionName,
  castFunctionName,
  inlineBinaryOpText,
  inlineUnaryOpString,
  unaryFunctionName,
} from './op-names.js';

/** The dtype name nvFuser prints after tensors and scalars in Inputs/Outputs: `float`, `__half`, `int64_t`. */
export function dtypeName(dtype: DataType): string {
  return cppTypeName(dtype);
}

/** The dtype of any value; IterDomains count as Index (they stand for their extent). */
export function valDtype(v: Val): DataType {
  return v.kind === 'iterDomain' ? 'Index' : v.dtype;
}

/** A constant's value text: `3` for integers, `double(0.5)` for floating types, `true` for Bool. */
export function constantToString(dtype: DataType, value: ScalarValue): string {
  if (value instanceof Complex) {
    const p = maxDigits10(dtype);
    return `${cppTypeName(dtype)}(${formatCppFloat(value.re, p)}, ${formatCppFloat(value.im, p)})`;
  }
  if (dtype === 'Bool') return (typeof value === 'boolean' ? value : Number(value) !== 0) ? 'true' : 'false';
  if (isFloatingType(dtype)) {
    const v = typeof value === 'boolean' ? Number(value) : Number(value);
    return `${cppTypeName(dtype)}(${formatCppFloat(v, maxDigits10(dtype))})`;
  }
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number' && !Number.isInteger(value)) return formatCppFloat(value, 17);
  return value.toString();
}

/** A scalar by name or value (nvFuser's Val::toString). */
export function scalarToString(s: Scalar): string {
  if (s.namedScalar !== null) return s.namedScalar;
  if (s.value === null) return s.symbolicName();
  return constantToString(s.dtype, s.value);
}

/** A scalar with its definition spelled out: `( ceilDiv(i0, 4) )` (nvFuser's Val::toInlineString). */
export function scalarToInlineString(s: Scalar): string {
  const def = s.definition;
  if (def === null) return scalarToString(s);
  const body = scalarExprInline(def);
  return body === null ? scalarToString(s) : `( ${body} )`;
}

function inlineOperand(v: Val): string {
  return v.kind === 'scalar' ? scalarToInlineString(v) : valToString(v);
}

/**
 * The right-hand side of a scalar expression with operands inlined (`i4 * ( i5 * i6 )`), or null
 * when the expression has no inline form (only pointwise ops compute scalars).
 */
export function scalarExprInline(def: Expr): string | null {
  const out = def.outputs[0];
  if (out === undefined || out.kind !== 'scalar') return null;
  switch (def.kind) {
    case 'UnaryOp':
      return unaryText(def.op, valDtype(def.in()), out.dtype, inlineOperand(def.in()));
    case 'BinaryOp':
      return binaryText(def.op, out.dtype, inlineOperand(def.lhs()), inlineOperand(def.rhs()), null);
    case 'TernaryOp':
      return `${def.op}(${def.inputs.map(inlineOperand).join(', ')})`;
    default:
      return null;
  }
}

/** `op(x)`, `-x`, `(double)(x)`, `rsqrtf(x)` — UnaryOp's printHelper. */
export function unaryText(op: UnaryOpType, inDtype: DataType, outDtype: DataType, x: string): string {
  const prefix = inlineUnaryOpString(op);
  if (prefix !== null) return `${prefix}${x}`;
  if (op === 'cast') return `${castFunctionName(inDtype, outDtype)}(${x})`;
  return `${unaryFunctionName(op, outDtype)}(${x})`;
}

/**
 * `a + b` or `pow(a, b)` — BinaryOp's printHelper. `breakBefore` is the line break (with indent)
 * that tensor ops put before the second operand; null keeps it on one line.
 */
export function binaryText(
  op: BinaryOpType,
  outDtype: DataType,
  a: string,
  b: string,
  breakBefore: string | null,
): string {
  const infix = inlineBinaryOpText(op);
  const br = breakBefore ?? '';
  if (infix !== null) return `${a}${br} ${infix} ${b}`;
  return `${binaryFunctionName(op, outDtype)}(${a}${br}, ${b})`;
}

export function iterDomainToString(id: IterDomain): string {
  let extent = scalarToInlineString(id.extent);
  if (id.expandedExtent !== null) extent += ` ex ${scalarToInlineString(id.expandedExtent)}`;
  const rf = id.isRFactorProduct ? 'rf' : '';
  return `${iterTypePrefix(id.iterType)}${parallelTypeShortName(id.parallelType)}${id.name}{${extent}}${rf}`;
}

/** `[ iS0{i0}, iS1{i1} ]` over the loop domain; nvFuser prints `[ 0 ]` for a 0-dim tensor. */
export function tensorDomainToString(domain: TensorDomain): string {
  if (domain.loop.length === 0) return '[ 0 ]';
  return `[ ${domain.loop.map(iterDomainToString).join(', ')} ]`;
}

export function tensorViewToString(tv: TensorView): string {
  let s = `T${tv.name}_${memoryTypeSuffix(tv.memoryType)}${tensorDomainToString(tv.domain)}`;
  if (tv.computeAtPosition > 0) s += ` ca_pos( ${tv.computeAtPosition} )`;
  if (tv.maxProducerPosition > 0) s += ` produce_pos( ${tv.maxProducerPosition} )`;
  return s;
}

/** Any value as nvFuser's toString prints it. */
export function valToString(v: Val): string {
  switch (v.kind) {
    case 'tensorView':
      return tensorViewToString(v);
    case 'iterDomain':
      return iterDomainToString(v);
    case 'scalar':
      return scalarToString(v);
    default: {
      const unreachable: never = v;
      return String(unreachable);
    }
  }
}

/** Any value as nvFuser's toInlineString prints it (scalars with definitions expanded). */
export function valToInlineString(v: Val): string {
  return v.kind === 'scalar' ? scalarToInlineString(v) : valToString(v);
}
