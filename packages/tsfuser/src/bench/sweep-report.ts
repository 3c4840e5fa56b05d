// The sweep's report: one table per family (tsfuser, eager, torch.compile per point, ratio and %
// of the copy floor) and a summary per family and dtype — the geometric mean of torch.compile
// time / tsfuser time, the worst point, how many points are below 0.9×, and the lowest % of the
// copy floor among points that move ≥ 64 MB (the acceptance measures). Pure: it only
// formats measurements, so it is unit-tested on made-up numbers.
//
// Invariant: a ratio is computed only where both tsfuser and torch.compile have a time for the
// point; a point missing either side is listed with '—' and left out of every summary figure.

import { pointBytes, pointName, type SweepDtype, type SweepFamily, type SweepPoint } from './sweep-points.js';

export type SweepImpl = 'tsfuser' | 'eager' | 'torch.compile';

export interface SweepMeasurement {
  point: SweepPoint;
  impl: SweepImpl;
  medianMs: number;
}

export interface SweepReport {
  device: string;
  date: string;
  commit: string;
  copyGbps: number;
  chunk: string;
  measurements: SweepMeasurement[];
  /** tsfuser first call per point, ms: scheduling + NVRTC where the point needs a new kernel, else a cached launch. */
  compileMs: Record<string, number>;
  notes: string[];
}

export interface FamilySummary {
  family: SweepFamily;
  dtype: SweepDtype;
  points: number;
  geomeanSpeedup: number;
  worst: { name: string; speedup: number } | null;
  below09: number;
  /** Lowest % of the copy floor among points moving ≥ 64 MB (null: none). */
  minFloorPercentLarge: number | null;
}

const LARGE_BYTES = 64 * 1024 * 1024;

function timeOf(r: SweepReport, p: SweepPoint, impl: SweepImpl): number | undefined {
  const name = pointName(p);
  return r.measurements.find((m) => m.impl === impl && pointName(m.point) === name)?.medianMs;
}

function uniquePoints(r: SweepReport): SweepPoint[] {
  const seen = new Map<string, SweepPoint>();
  for (const m of r.measurements) if (!seen.has(pointName(m.point))) seen.set(pointName(m.point), m.point);
  return [...seen.values()];
}

function floorPercent(r: SweepReport, p: SweepPoint, ms: number): number {
  return (100 * (pointBytes(p) / (ms * 1e-3) / 1e9)) / r.copyGbps;
}

export function summarize(r: SweepReport): FamilySummary[] {
  const groups = new Map<string, SweepPoint[]>();
  for (const p of uniquePoints(r)) {
    const key = `${p.family}/${p.dtype}`;
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  const out: FamilySummary[] = [];
  for (const points of groups.values()) {
    const first = points[0] as SweepPoint;
    let logSum = 0;
    let n = 0;
    let worst: FamilySummary['worst'] = null;
    let below09 = 0;
    let minFloor: number | null = null;
    for (const p of points) {
      const t = timeOf(r, p, 'tsfuser');
      const c = timeOf(r, p, 'torch.compile');
      if (t !== undefined && pointBytes(p) >= LARGE_BYTES) {
        const f = floorPercent(r, p, t);
        minFloor = minFloor === null ? f : Math.min(minFloor, f);
      }
      if (t === undefined || c === undefined) continue;
      const speedup = c / t;
      logSum += Math.log(speedup);
      n += 1;
      if (speedup < 0.9) below09 += 1;
      if (worst === null || speedup < worst.speedup) worst = { name: pointName(p), speedup };
    }
    out.push({ family: first.family, dtype: first.dtype, points: n, geomeanSpeedup: n === 0 ? NaN : Math.exp(logSum / n), worst, below09, minFloorPercentLarge: minFloor });
  }
  return out;
}

const fmt = (v: number | undefined, digits: number): string => (v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(digits));

export function formatSweepReport(r: SweepReport): string {
  const lines: string[] = [];
  lines.push(`tsfuser bench --suite sweep — ${r.device}, ${r.date}, commit ${r.commit}, chunk ${r.chunk}; copy floor ${r.copyGbps.toFixed(0)} GB/s; L2 flushed by a read before each run; medians`);
  const points = uniquePoints(r);
  const families = [...new Set(points.map((p) => `${p.family}/${p.dtype}`))];
  for (const key of families) {
    lines.push('');
    lines.push(`### ${key}`);
    lines.push('');
    lines.push('| rows × hidden | MB | tsfuser ms | eager ms | torch.compile ms | compile / tsfuser | tsfuser % of floor | first call ms |');
    lines.push('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const p of points.filter((q) => `${q.family}/${q.dtype}` === key)) {
      const t = timeOf(r, p, 'tsfuser');
      const e = timeOf(r, p, 'eager');
      const c = timeOf(r, p, 'torch.compile');
      const ratio = t !== undefined && c !== undefined ? c / t : undefined;
      const floor = t === undefined ? undefined : floorPercent(r, p, t);
      lines.push(`| ${p.rows} × ${p.hidden} | ${(pointBytes(p) / 1e6).toFixed(1)} | ${fmt(t, 4)} | ${fmt(e, 4)} | ${fmt(c, 4)} | ${fmt(ratio, 2)} | ${fmt(floor, 1)} | ${fmt(r.compileMs[pointName(p)], 0)} |`);
    }
  }
  lines.push('');
  lines.push('| family | dtype | points | geomean compile/tsfuser | worst point | points < 0.9× | min % of floor (≥ 64 MB) |');
  lines.push('|---|---|---:|---:|---|---:|---:|');
  for (const s of summarize(r)) {
    const worst = s.worst === null ? '—' : `${s.worst.name} ${s.worst.speedup.toFixed(2)}×`;
    lines.push(`| ${s.family} | ${s.dtype} | ${s.points} | ${fmt(s.geomeanSpeedup, 3)} | ${worst} | ${s.below09} | ${s.minFloorPercentLarge === null ? '—' : s.minFloorPercentLarge.toFixed(1)} |`);
  }
  for (const n of r.notes) lines.push(`note: ${n}`);
  return `${lines.join('\n')}\n`;
}

/** One report from the chunks of a sweep (same device and copy floor assumed; the first's are kept). */
export function mergeSweepReports(reports: readonly SweepReport[]): SweepReport {
  const first = reports[0];
  if (first === undefined) throw new Error('no sweep reports to merge');
  return {
    ...first,
    chunk: reports.map((r) => r.chunk).join('+'),
    commit: [...new Set(reports.map((r) => r.commit))].join('+'),
    measurements: reports.flatMap((r) => r.measurements),
    compileMs: Object.assign({}, ...reports.map((r) => r.compileMs)) as Record<string, number>,
    notes: reports.flatMap((r) => r.notes),
  };
}
