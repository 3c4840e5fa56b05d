// erfcinv in float64 for the reference evaluator: the inverse of the complementary error
// function on [0, 2] (nvFuser's UnaryOpType::Erfcinv, CUDA's erfcinv). Symmetry
// erfcinv(x) = −erfcinv(2 − x) reduces to (0, 1]; there, for x ≥ 0.5 erfinv(1 − x) is used
// (1 − x is exact by Sterbenz's lemma), and below, Newton's method on log(erfc(y)) = log(x)
// (log erfc(y) = log erfcx(y) − y², stable for tiny x) from y = √(−log x).
// Invariant: erfc(erfcinv(x)) = x to about 1e-15 relative; NaN outside [0, 2].

import { erfcx, erfinv } from './special-functions.js';

const TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);

export function erfcinv(x: number): number {
  if (Number.isNaN(x) || x < 0 || x > 2) return NaN;
  if (x === 0) return Infinity;
  if (x === 2) return -Infinity;
  if (x > 1) return -erfcinv(2 - x);
  if (x >= 0.5) return erfinv(1 - x);
  const target = Math.log(x);
  let y = Math.sqrt(-target);
  for (let i = 0; i < 100; i += 1) {
    const scaled = erfcx(y);
    const residual = Math.log(scaled) - y * y - target;
    // d/dy log erfc(y) = −(2/√π) e^{−y²} / erfc(y) = −(2/√π) / erfcx(y)
    const step = residual / (-TWO_OVER_SQRT_PI / scaled);
    y -= step;
    if (Math.abs(step) <= 1e-16 * y) break;
  }
  return y;
}
