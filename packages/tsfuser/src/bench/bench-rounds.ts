// `tsfuser bench --rounds N`: the aggregation of N alternating rounds (each round times every
// selected workload through tsfuser, then through PyTorch eager and torch.compile, as one
// `tsfuser bench` does). Rows at 95-105% of PyTorch's are limited by run-to-run noise (issue 33:
// ±5% between runs); the per-round ratio compares two numbers measured minutes apart instead of
// a whole run apart, and its median and range over rounds say how much of a gap is noise.
// Pure functions of the rounds' rows (no device): the summary per workload and impl, the table of
// rows at the medians, and the text table.
// Invariant: a ratio is `other impl's ms / tsfuser's ms` of ONE round (> 1: tsfuser is faster),
// and only rounds that measured both enter it.

import type { BenchRow } from './run-bench.js';

/** Median, fastest and slowest of one quantity over the rounds that measured it. */
export interface RoundStats {
  /** One value per round that measured it, in round order. */
  perRound: number[];
  median: number;
  min: number;
  max: number;
}

/** One workload over the rounds. */
export interface WorkloadRounds {
  workload: string;
  /** Per impl (tsfuser, eager, torch.compile, …): its median ms per round. */
  ms: Record<string, RoundStats>;
  /** Per other impl: the per-round ratio impl ms / tsfuser ms (the speedup of tsfuser). */
  speedup: Record<string, RoundStats>;
}

export interface BenchRounds {
  rounds: number;
  /** In the order workloads first appear in the rounds. */
  workloads: WorkloadRounds[];
}

/** The median of a non-empty list (the mean of the middle two for an even count). */
export function medianOf(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('medianOf: no values');
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export function roundStats(values: readonly number[]): RoundStats {
  return { perRound: [...values], median: medianOf(values), min: Math.min(...values), max: Math.max(...values) };
}

/** The summary of `rounds` (each the rows one round measured; a failed workload is just absent). */
export function aggregateRounds(rounds: readonly (readonly BenchRow[])[]): BenchRounds {
  const order: string[] = [];
  const ms = new Map<string, Map<string, number[]>>();
  const speedup = new Map<string, Map<string, number[]>>();
  const push = (into: Map<string, Map<string, number[]>>, workload: string, impl: string, v: number): void => {
    let byImpl = into.get(workload);
    if (byImpl === undefined) into.set(workload, (byImpl = new Map()));
    byImpl.set(impl, [...(byImpl.get(impl) ?? []), v]);
  };
  for (const rows of rounds) {
    const tsfuser = new Map<string, number>();
    for (const r of rows) {
      if (!order.includes(r.workload)) order.push(r.workload);
      push(ms, r.workload, r.impl, r.medianMs);
      if (r.impl === 'tsfuser') tsfuser.set(r.workload, r.medianMs);
    }
    for (const r of rows) {
      const own = tsfuser.get(r.workload);
      if (r.impl === 'tsfuser' || own === undefined || !(own > 0)) continue;
      push(speedup, r.workload, r.impl, r.medianMs / own);
    }
  }
  const stats = (m: Map<string, number[]> | undefined): Record<string, RoundStats> => Object.fromEntries([...(m ?? new Map<string, number[]>()).entries()].map(([impl, v]) => [impl, roundStats(v)]));
  return { rounds: rounds.length, workloads: order.map((workload) => ({ workload, ms: stats(ms.get(workload)), speedup: stats(speedup.get(workload)) })) };
}

/**
 * One row per (workload, impl) at the median over rounds: the row of the last round that
 * measured it, its rates (GB/s, % of copy, TFLOP/s: all bytes or flops over ms) rescaled to the
 * median ms — what the ordinary table and `--json` rows then show.
 */
export function medianRows(rounds: readonly (readonly BenchRow[])[], summary: BenchRounds): BenchRow[] {
  const last = new Map<string, BenchRow>();
  for (const rows of rounds) for (const r of rows) last.set(`${r.workload}\u0000${r.impl}`, r);
  const out: BenchRow[] = [];
  for (const w of summary.workloads) {
    for (const [impl, s] of Object.entries(w.ms)) {
      const r = last.get(`${w.workload}\u0000${impl}`);
      if (r === undefined) continue;
      const scale = r.medianMs / s.median;
      out.push({
        ...r,
        medianMs: s.median,
        gbps: r.gbps * scale,
        percentOfCopy: r.percentOfCopy * scale,
        percentOfSameSizeCopy: r.percentOfSameSizeCopy * scale,
        ...(r.tflops === undefined ? {} : { tflops: r.tflops * scale }),
      });
    }
  }
  return out;
}

const IMPL_ORDER = ['tsfuser', 'eager', 'torch.compile'];
const byImplOrder = (a: string, b: string): number => (IMPL_ORDER.indexOf(a) + 1 || 99) - (IMPL_ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b);

/** The rounds as the table `tsfuser bench --rounds N` prints after the ordinary one. */
export function formatBenchRounds(r: BenchRounds): string {
  const lines: string[] = [];
  lines.push(`${r.rounds} rounds (each: every workload through tsfuser, then PyTorch); per workload the median over rounds and the min-max`);
  lines.push('', '| workload | impl | median ms | min-max ms | tsfuser speedup (median) | min-max |', '|---|---|---:|---:|---:|---:|');
  for (const w of [...r.workloads].sort((a, b) => a.workload.localeCompare(b.workload))) {
    for (const impl of Object.keys(w.ms).sort(byImplOrder)) {
      const s = w.ms[impl] as RoundStats;
      const x = w.speedup[impl];
      const ratio = x === undefined ? '' : `${x.median.toFixed(3)}×`;
      const range = x === undefined ? '' : `${x.min.toFixed(3)}-${x.max.toFixed(3)}`;
      lines.push(`| ${w.workload} | ${impl} | ${s.median.toFixed(3)} | ${s.min.toFixed(3)}-${s.max.toFixed(3)} | ${ratio} | ${range} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
