// C++ literals for constant scalars: integers with their width, floats with enough digits to
// round-trip (17 significant digits), non-finite values through the runtime's macros.

import { Complex, type DataType, type ScalarValue } from '@tsfuser/fusion-ir';

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
