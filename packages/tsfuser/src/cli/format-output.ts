// One summary line per output: shape, dtype and a short checksum (sum of all elements and the
// first few values), enough to compare runs by eye or in a test.

import { isComplexType, type HostTensor } from '@tsfuser/fusion-ir';

function fmt(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  return v.toPrecision(6);
}

export function checksum(t: HostTensor): { sum: number; first: number[] } {
  let sum = 0;
  for (let i = 0; i < t.numel; i += 1) sum += t.getNumber(i);
  const first: number[] = [];
  for (let i = 0; i < Math.min(4, t.numel); i += 1) first.push(t.getNumber(i));
  return { sum, first };
}

/** A complex value as Python prints one (`1.5+2j`, `1-0.5j`, `nan+nanj`). */
function fmtComplex(re: number, im: number): string {
  const negative = im < 0 || Object.is(im, -0);
  return `${fmt(re)}${negative ? '-' : '+'}${fmt(Math.abs(im))}j`;
}

/** The checksum of a complex tensor: the sum and first elements as (re, im) pairs. */
function complexChecksum(t: HostTensor): { sum: string; first: string[] } {
  const v = t.toComplexInterleaved();
  let re = 0;
  let im = 0;
  for (let i = 0; i < t.numel; i += 1) {
    re += v[2 * i] as number;
    im += v[2 * i + 1] as number;
  }
  const first: string[] = [];
  for (let i = 0; i < Math.min(4, t.numel); i += 1) first.push(fmtComplex(v[2 * i] as number, v[2 * i + 1] as number));
  return { sum: fmtComplex(re, im), first };
}

export function outputLine(index: number, t: HostTensor): string {
  const c = isComplexType(t.dtype) ? complexChecksum(t) : (({ sum, first }) => ({ sum: fmt(sum), first: first.map(fmt) }))(checksum(t));
  const more = t.numel > c.first.length ? ', …' : '';
  return `out${index}: shape [${t.sizes.join(', ')}] ${t.dtype} sum ${c.sum} first [${c.first.join(', ')}${more}]`;
}
