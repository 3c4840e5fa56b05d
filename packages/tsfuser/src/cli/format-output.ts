// One summary line per output: shape, dtype and a short checksum (sum of all elements and the
// first few values), enough to compare runs by eye or in a test.

import type { HostTensor } from '@tsfuser/fusion-ir';

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

export function outputLine(index: number, t: HostTensor): string {
  const { sum, first } = checksum(t);
  const more = t.numel > first.length ? ', …' : '';
  return `out${index}: shape [${t.sizes.join(', ')}] ${t.dtype} sum ${fmt(sum)} first [${first.map(fmt).join(', ')}${more}]`;
}
