// How nvFuser writes values: `T3_g[ iS9{i4}, rS10{i5}, bS11{1} ] ca_pos( 2 )`, IterDomains as
// `<iterType><parallelType><name>{<extent>}` (+ `rf` for rFactor products), symbolic scalars
// `i0`/`d3`/`b2`, derived extents inline `( ceilDiv(i0, 4) )`, constants in math `double(3)`.

import { cppTypeName } from '../ir/data-type.js';
import type { IterDomain } from '../ir/iter-domain.js';
import { inlineBinaryOpString } from '../ir/op-types.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { iterTypePrefix, memoryTypeSuffix, parallelTypeShortName } from '../ir/types.js';
import type { Val } from '../ir/val.js';

export function formatNumber(v: number | bigint | boolean): string {
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (Number.isNaN(v)) return 'NAN';
  if (v === Infinity) return 'INFINITY';
  if (v === -Infinity) return '-INFINITY';
  if (Object.is(v, -0)) return '-0';
  return String(v).replace(/e([+-])(\d)$/, 'e$10$2');
}

/** A scalar as it appears inside an extent: bare numbers and names, derived ones parenthesized. */
export function extentToString(s: Scalar): string {
  if (s.value !== null) return formatNumber(s.value);
  const def = s.definition;
  if (def !== null && (def.kind === 'BinaryOp' || def.kind === 'UnaryOp')) return `( ${scalarExprInline(s)} )`;
  return s.symbolicName();
}

function scalarExprInline(s: Scalar): string {
  const def = s.definition;
  if (def === null) return s.symbolicName();
  if (def.kind === 'BinaryOp') {
    const a = extentToString(def.lhs() as Scalar);
    const b = extentToString(def.rhs() as Scalar);
    const inline = inlineBinaryOpString(def.op);
    return inline !== null ? `${a} ${inline} ${b}` : `${def.op}(${a}, ${b})`;
  }
  if (def.kind === 'UnaryOp') {
    const a = extentToString(def.in() as Scalar);
    return def.op === 'cast' ? `(${cppTypeName(s.dtype)})(${a})` : `${def.op}(${a})`;
  }
  return s.symbolicName();
}

/** A scalar operand inside a math expression: constants typed (`double(3)`), others by name. */
export function scalarToString(s: Scalar): string {
  if (s.namedScalar !== null) return s.namedScalar;
  if (s.value !== null) {
    if (s.dtype === 'Bool') return formatNumber(s.value);
    const text = formatNumber(s.value);
    return `${cppTypeName(s.dtype === 'Index' ? 'Int' : s.dtype)}(${text})`;
  }
  return s.symbolicName();
}

export function iterDomainToString(id: IterDomain): string {
  const extent = id.expandedExtent !== null
    ? `${extentToString(id.extent)} ex ${extentToString(id.expandedExtent)}`
    : extentToString(id.extent);
  return `${iterTypePrefix(id.iterType)}${parallelTypeShortName(id.parallelType)}${id.name}{${extent}}${id.isRFactorProduct ? 'rf' : ''}`;
}

export function tensorViewToString(tv: TensorView): string {
  const dims = tv.domain.loop.map(iterDomainToString).join(', ');
  let s = `T${tv.name}_${memoryTypeSuffix(tv.memoryType)}[ ${dims} ]`;
  if (tv.computeAtPosition > 0) s += ` ca_pos( ${tv.computeAtPosition} )`;
  if (tv.maxProducerPosition > 0) s += ` produce_pos( ${tv.maxProducerPosition} )`;
  return s;
}

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

/** The dtype name printed after tensors in Inputs/Outputs: `float`, `__half` … */
export function dtypeName(tv: { dtype: Parameters<typeof cppTypeName>[0] }): string {
  return cppTypeName(tv.dtype);
}
