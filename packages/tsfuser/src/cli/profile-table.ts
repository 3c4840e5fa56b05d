// `tsfuser run --profile`'s report: the per-entry table nvFuser's profiler prints (segment,
// kernel or library call, scheduler/library, device time, bytes, GB/s and % of the device's peak
// DRAM bandwidth, or TFLOP/s for GEMM and attention), one summary line per class of entry
// (generated kernels, GEMM, attention: count and time) and the host time per call.
// Several profiled calls of one cached plan are folded into one summary first: per entry the
// median device time, the median host time per call.
// Invariant: the text is a pure function of the summary and the peak (golden-tested); a call
// list whose plans differ (entry names or counts) is refused, not mixed.

import type { DeviceProperties } from '@tsfuser/device';
import type { KernelProfile } from '@tsfuser/runtime';
import type { ExecuteProfile } from '../definition/execution-state.js';

/** The profiled calls folded into one (see the header). */
export interface ProfileSummary {
  backend: string;
  calls: number;
  /** One per entry of the plan, its timeMs / GB/s / TFLOP/s from the median time. */
  entries: KernelProfile[];
  /** Median host time of the executor-cache call (FusionProfile.hostTimeMs). */
  hostTimeMs: number;
  /** Median wall time of the whole execute (FusionDefinition.execute). */
  wallMs: number;
}

/** The device's peak DRAM bandwidth and where the number comes from. */
export interface PeakBandwidth {
  gbs: number;
  source: string;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Folds profiled calls of one plan into medians; an empty list or differing plans is an error. */
export function summarizeProfiles(profiles: readonly ExecuteProfile[]): ProfileSummary {
  const first = profiles[0];
  if (first === undefined) throw new Error('summarizeProfiles: no profiled call');
  const names = first.kernelProfiles.map((k) => k.name).join('\n');
  profiles.forEach((p, i) => {
    if (p.kernelProfiles.map((k) => k.name).join('\n') !== names) throw new Error(`summarizeProfiles: call ${i} ran another plan than call 0 (its entries differ)`);
  });
  const entries = first.kernelProfiles.map((k, e): KernelProfile => {
    const timeMs = median(profiles.map((p) => (p.kernelProfiles[e] as KernelProfile).timeMs));
    const bytes = k.inputBytes + k.outputBytes;
    return { ...k, timeMs, effectiveBandwidthGbs: timeMs > 0 ? bytes / (timeMs * 1e6) : 0, tflops: k.flops === null ? null : timeMs > 0 ? k.flops / (timeMs * 1e9) : 0 };
  });
  return { backend: first.backend, calls: profiles.length, entries, hostTimeMs: median(profiles.map((p) => p.hostTimeMs)), wallMs: median(profiles.map((p) => p.wallMs)) };
}

/**
 * Theoretical DRAM bandwidth from the memory clock and bus width the driver reports (double data
 * rate: 2 transfers a clock), or null when the device did not report them.
 */
export function peakBandwidth(properties: Pick<DeviceProperties, 'memoryClockKhz' | 'memoryBusWidthBits'>): PeakBandwidth | null {
  const { memoryClockKhz, memoryBusWidthBits } = properties;
  if (memoryClockKhz === undefined || memoryBusWidthBits === undefined || memoryClockKhz <= 0 || memoryBusWidthBits <= 0) return null;
  const gbs = (2 * memoryClockKhz * 1e3 * (memoryBusWidthBits / 8)) / 1e9;
  return { gbs, source: `2 × memory clock ${memoryClockKhz / 1000} MHz × ${memoryBusWidthBits}-bit bus` };
}

type EntryClass = 'generated kernels' | 'GEMM' | 'attention';

function classOf(k: KernelProfile): EntryClass {
  switch (k.kind) {
    case 'kernel':
      return 'generated kernels';
    case 'libraryCall':
      return 'GEMM';
    case 'attention':
      return 'attention';
    default: {
      const unreachable: never = k.kind;
      throw new Error(`unknown profiled kind ${String(unreachable)}`);
    }
  }
}

const us = (ms: number): string => (ms * 1000).toFixed(2);
const mb = (bytes: number): string => (bytes / 1e6).toFixed(3);

interface Column {
  title: string;
  right: boolean;
  cell: (k: KernelProfile) => string;
}

function columns(peak: PeakBandwidth | null): Column[] {
  return [
    { title: 'Seg', right: true, cell: (k) => String(k.groupId) },
    { title: 'Kernel / library call', right: false, cell: (k) => k.name },
    { title: 'Scheduler', right: false, cell: (k) => (k.library === null ? k.scheduler : `${k.scheduler} (${k.library})`) },
    { title: 'Time(us)', right: true, cell: (k) => us(k.timeMs) },
    { title: 'In(MB)', right: true, cell: (k) => mb(k.inputBytes) },
    { title: 'Out(MB)', right: true, cell: (k) => mb(k.outputBytes) },
    { title: 'GB/s', right: true, cell: (k) => k.effectiveBandwidthGbs.toFixed(1) },
    { title: '%PeakBw', right: true, cell: (k) => (peak === null ? '-' : ((100 * k.effectiveBandwidthGbs) / peak.gbs).toFixed(1)) },
    { title: 'TFLOP/s', right: true, cell: (k) => (k.tflops === null ? '-' : k.tflops.toFixed(2)) },
    { title: 'Grid', right: false, cell: (k) => (k.kind === 'libraryCall' ? '-' : `[${k.grid.join(', ')}]`) },
    { title: 'Block', right: false, cell: (k) => (k.kind === 'libraryCall' ? '-' : `[${k.block.join(', ')}]`) },
    { title: 'Stream', right: false, cell: (k) => (k.sideStream ? 'side' : 'main') },
  ];
}

/** The report's text (see the header). */
export function formatProfileTable(summary: ProfileSummary, peak: PeakBandwidth | null): string {
  const cols = columns(peak);
  const rows = summary.entries.map((k) => cols.map((c) => c.cell(k)));
  const widths = cols.map((c, i) => Math.max(c.title.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => ((cols[i] as Column).right ? cell.padStart(widths[i] as number) : cell.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  const out: string[] = [];
  out.push(`=== profile (${summary.backend}; median of ${summary.calls} call${summary.calls === 1 ? '' : 's'} after a warm-up) ===`);
  out.push(line(cols.map((c) => c.title)));
  for (const r of rows) out.push(line(r));
  const total = summary.entries.reduce((s, k) => s + k.timeMs, 0);
  for (const cls of ['generated kernels', 'GEMM', 'attention'] as const) {
    const of = summary.entries.filter((k) => classOf(k) === cls);
    const time = of.reduce((s, k) => s + k.timeMs, 0);
    const flops = of.reduce((s, k) => s + (k.flops ?? 0), 0);
    const rate = cls === 'generated kernels' || time <= 0 ? '' : `, ${(flops / (time * 1e9)).toFixed(2)} TFLOP/s`;
    out.push(`${`${cls}:`.padEnd(19)}${String(of.length).padStart(3)}, ${us(time)} us${total > 0 ? ` (${((100 * time) / total).toFixed(1)}%)` : ''}${rate}`);
  }
  out.push(`device time per call: ${us(total)} us`);
  out.push(`host time per call: ${us(summary.hostTimeMs)} us (the executor-cache call, without the profile's event waits); execute wall time ${us(summary.wallMs)} us`);
  out.push(peak === null ? 'peak bandwidth: unknown (the device reported no memory clock / bus width)' : `peak bandwidth: ${peak.gbs.toFixed(1)} GB/s (${peak.source})`);
  return `${out.join('\n')}\n`;
}
