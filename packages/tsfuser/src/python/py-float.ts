// A python float value kept apart from python ints while a definition is interpreted: `2.0` is
// a Double scalar in nvFuser, `2` an Int one, and sizes must be ints even when a float is integral.
//
// Invariant: a PyFloat only ever wraps a value python's float type can hold (any JS number).

export class PyFloat {
  constructor(readonly value: number) {}
}

const FLOAT_TEXT = /^[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const SPECIAL_TEXT = /^([+-]?)(inf|infinity|nan)$/i;

/** Python's `float(x)` of a number, bool, PyFloat or string ("inf", "-inf", "nan", "1e3" …); null if python would raise. */
export function pyFloatOf(v: unknown): number | null {
  if (v instanceof PyFloat) return v.value;
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v !== 'string') return null;
  const text = v.trim();
  const special = SPECIAL_TEXT.exec(text);
  if (special !== null) {
    if ((special[2] as string).toLowerCase() === 'nan') return NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  if (FLOAT_TEXT.test(text)) return Number(text.replace(/_/g, ''));
  return null;
}
