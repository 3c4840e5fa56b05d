// C++ literals for constant scalars: integers with their width, floats with enough digits to
// round-trip (17 significant digits), non-finite values through the runtime's macros.
// literalOperand keeps the operand invariant the emitter relies on: an operand's dtype is the
// dtype of its C text (a floating literal is a double, whatever the scalar's dtype).

import { Complex, isFloatingType, type DataType, type ScalarValue } from '@tsfuser/fusion-ir';
import type { ScalarOperand } from '../kernel-ir/nodes.js';

export function scalarLiteral(value: ScalarValue, dtype: DataType): string {
  if (dtype === 'ComplexFloat' || dtype === 'ComplexDouble') {
    const z = value instanceof Complex ? value : new Complex(Number(value), 0);
    return `${dtype === 'ComplexFloat' ? 'nvf_cfloat' : 'nvf_cdouble'}_make(${scalarLiteral(z.re, 'Double')}, ${scalarLiteral(z.im, 'Double')})`;
  }
  if (value instanceof Complex) return scalarLiteral(value.re, dtype); // complex → real keeps the real part
  if (typeof value === 'boolean') return dtype === 'Bool' ? (value ? 'true' : 'false') : value ? '1' : '0';
  switch (dtype) {
    case 'Bool':
      return Number(value) !== 0 ? 'true' : 'false';
    case 'Int32':
      return String(value);
    case 'Int':
    case 'Index':
      return `${String(value)}LL`;
    case 'UInt64':
      return `${String(BigInt.asUintN(64, typeof value === 'bigint' ? value : BigInt(Math.trunc(Number(value)))))}ULL`;
    default: {
      const x = Number(value);
      if (Number.isNaN(x)) return 'NVF_NAN';
      if (x === Infinity) return 'NVF_INFINITY';
      if (x === -Infinity) return '(-NVF_INFINITY)';
      const text = x.toExponential(16);
      return x < 0 || Object.is(x, -0) ? `(${Object.is(x, -0) ? '-' : ''}${text})` : text;
    }
  }
}

/**
 * A constant scalar as a kernel operand. A real floating literal is C text of type double, so
 * the operand says Double: the emitter then converts it to the op's compute type like any
 * double (`static_cast<float>(…)`), where a Float / Half / BFloat16 / fp8 dtype made it pass
 * the text on as if it were already a float (`nvf_nextafter(float, double)` was ambiguous) or
 * decode it as a __half / __bfloat (`__bfloat2float(0.0e+0)` does not compile).
 */
export function literalOperand(value: ScalarValue, dtype: DataType): ScalarOperand {
  const text = scalarLiteral(value, dtype);
  return { kind: 'scalar', text, dtype: isFloatingType(dtype) ? 'Double' : dtype };
}
