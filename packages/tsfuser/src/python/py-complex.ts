// Python complex numbers inside a definition: `1+2j`, `-0.5j`, `complex(1.0, float("inf"))`.
// The interpreter keeps them as PyComplex (double-precision parts, as python's complex) and
// turns them into ComplexDouble scalars where they meet fd.define_scalar or an fd.ops operand.

export class PyComplex {
  constructor(
    readonly re: number,
    readonly im: number,
  ) {}
}

/** a op b for python numbers of which at least one is complex; null for operators complex lacks. */
export function complexArithmetic(op: string, a: PyComplex, b: PyComplex): PyComplex | null {
  switch (op) {
    case '+':
      return new PyComplex(a.re + b.re, a.im + b.im);
    case '-':
      return new PyComplex(a.re - b.re, a.im - b.im);
    case '*':
      return new PyComplex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
    case '/': {
      const d = b.re * b.re + b.im * b.im;
      return new PyComplex((a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d);
    }
    default:
      return null;
  }
}
