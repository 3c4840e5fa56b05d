// Complex values as JS sees them: an immutable (re, im) pair of float64 numbers. Scalars of
// ComplexFloat / ComplexDouble hold one (ComplexFloat's parts rounded to float32), and the
// reference evaluator computes complex ops on them; tensors store them interleaved (see
// host-tensor.ts).

export class Complex {
  constructor(
    readonly re: number,
    readonly im: number,
  ) {}

  /** Python's repr without the parentheses: `1+2j`, `-0.5-1j`, `nan+infj`. */
  toString(): string {
    const im = this.im;
    const sign = im < 0 || Object.is(im, -0) ? '-' : '+';
    return `${formatPart(this.re)}${sign}${formatPart(Math.abs(im))}j`;
  }
}

function formatPart(x: number): string {
  if (x !== x) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  return String(x);
}

export function isComplexValue(v: unknown): v is Complex {
  return v instanceof Complex;
}
