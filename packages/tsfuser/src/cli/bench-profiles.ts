// `tsfuser bench --profile`: per workload and definition, the per-kernel table of `tsfuser run
// --profile` (profile-table.ts), then the workload's timed median beside the sum of its kernels'
// device times — what the kernels take and what lies between them (host gaps, launch latency,
// idle device) in the same run, with device-resident inputs.
// Invariant: prints only what the profiles measured; the gap is the timed median minus the
// median kernel time summed over the workload's definitions.

import type { BenchProfile, BenchRow } from '../bench/run-bench.js';
import { formatProfileTable, summarizeProfiles } from './profile-table.js';

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : (s[Math.floor(s.length / 2)] as number);
}

/** The profile tables and, per workload, timed median against summed device time. */
export function formatBenchProfiles(profiles: readonly BenchProfile[], rows: readonly BenchRow[]): string {
  const out: string[] = [];
  const workloads = [...new Set(profiles.map((p) => p.workload))];
  for (const w of workloads) {
    const own = profiles.filter((p) => p.workload === w);
    let deviceMs = 0;
    for (const p of own) {
      out.push(`\n=== ${w}: ${p.step} (profile, median of ${p.profiles.length} calls) ===\n`);
      out.push(formatProfileTable(summarizeProfiles(p.profiles), null));
      deviceMs += median(p.profiles.map((x) => x.kernelTimeMs));
    }
    const timed = own[0]?.workloadMedianMs ?? 0;
    const compile = rows.find((r) => r.workload === w && r.impl === 'torch.compile');
    out.push(
      `${w}: timed ${timed.toFixed(3)} ms, kernels ${deviceMs.toFixed(3)} ms, between kernels ${(timed - deviceMs).toFixed(3)} ms` +
        `${compile === undefined ? '' : `; torch.compile ${compile.medianMs.toFixed(3)} ms`}\n`,
    );
  }
  return out.join('');
}
