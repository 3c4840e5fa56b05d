// machineEpsilon against the evaluator's own rounding: for every floating dtype, 1 + eps is the
// next value after 1 (it survives castTo) and 1 + eps/2 is a tie that rounds to even, back to 1 —
// which is torch.finfo(dtype).eps's definition; exact dtypes have no epsilon.
import { describe, expect, it } from 'vitest';
import { castTo, DATA_TYPES, isComplexType, isFloatingType, machineEpsilon, type DataType } from '../src/index.js';

describe('machineEpsilon', () => {
  const real = DATA_TYPES.filter((d) => isFloatingType(d) && !isComplexType(d) && d !== 'Float8_e8m0fnu');
  it.each(real)('%s: 1 + eps is representable, 1 + eps/2 rounds back to 1', (dtype: DataType) => {
    const eps = machineEpsilon(dtype);
    expect(eps).toBeGreaterThan(0);
    expect(castTo(1 + eps, dtype)).toBe(1 + eps);
    expect(castTo(1 + eps / 2, dtype)).toBe(1);
  });
  it('Float8_e8m0fnu (powers of two only): the value after 1 is 2', () => {
    expect(castTo(2, 'Float8_e8m0fnu')).toBe(2);
    expect(1 + machineEpsilon('Float8_e8m0fnu')).toBe(2);
  });
  it('complex types take their component\'s epsilon, exact types have none', () => {
    expect(machineEpsilon('ComplexFloat')).toBe(machineEpsilon('Float'));
    expect(machineEpsilon('ComplexDouble')).toBe(machineEpsilon('Double'));
    for (const d of DATA_TYPES.filter((t) => !isFloatingType(t) && !isComplexType(t))) expect(machineEpsilon(d)).toBe(0);
  });
});
