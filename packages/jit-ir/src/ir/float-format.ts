// Number formatting that matches PyTorch's printers: IValue doubles (`1.`, `0.10000000000000001`,
// `1.0000000000000001e-05`) and C++ `%g`-style stream output for tensor literals (`{0.5}`).

/** C/C++ `%.{precision}g`. */
export function formatG(v: number, precision: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mantissa = '0', expText = '0'] = v.toExponential(precision - 1).split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= precision) {
    const m = stripZeros(mantissa);
    const sign = exp < 0 ? '-' : '+';
    return `${m}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return stripZeros(v.toFixed(Math.max(0, precision - 1 - exp)));
}

function stripZeros(s: string): string {
  if (!s.includes('.')) return s;
  return s.replace(/0+$/, '').replace(/\.$/, '');
}

/**
 * How a double attribute / constant is printed in graph dumps (c10::IValue's operator<<):
 * integral values below 1e10 print as `1.` / `-0.`, others with 17 significant digits.
 * The result always reads back as a float (a `.`, `e`, `inf` or `nan` is present).
 */
export function formatDouble(d: number): string {
  if (Number.isFinite(d) && Math.abs(d) < 1e10 && Number.isInteger(d)) {
    return Object.is(d, -0) ? '-0.' : `${d}.`;
  }
  const s = formatG(d, 17);
  return /[.en]/.test(s) ? s : `${s}.`;
}

/** The shortest `%g` text that reads back as `d` (schema defaults: `1e-05`, `0.5`, `1.`). */
export function formatShortestDouble(d: number): string {
  if (!Number.isFinite(d)) return formatG(d, 17);
  for (let p = 1; p <= 17; p++) {
    const s = formatG(d, p);
    if (Number(s) === d) return /[.en]/.test(s) ? s : `${s}.`;
  }
  return formatDouble(d);
}
