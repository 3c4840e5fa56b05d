// `tsfuser bench --rounds N` without a GPU: the aggregation of alternating rounds (bench/
// bench-rounds.ts: medians over rounds per impl, the per-round speedup other ms / tsfuser ms with
// its median and min-max, rows rescaled to the medians, the table) against a direct computation
// on random rounds (seed printed), and the --rounds flag's parsing.
import { describe, expect, it } from 'vitest';
import { aggregateRounds, formatBenchRounds, medianOf, medianRows, roundStats } from '../src/bench/bench-rounds.js';
import type { BenchRow } from '../src/bench/run-bench.js';
import { parseRounds } from '../src/cli/bench-command.js';
import { Random } from '../src/bench/device-inputs.js';
import { runCli } from './helpers.js';

const seed = process.env.TSFUSER_SEED !== undefined ? Number(process.env.TSFUSER_SEED) : Date.now() % 100000;

function row(workload: string, impl: string, ms: number, bytes = 1e9, flops?: number): BenchRow {
  const gbps = bytes / (ms * 1e-3) / 1e9;
  return { workload, impl, medianMs: ms, gbps, percentOfCopy: gbps / 40, percentOfSameSizeCopy: gbps / 38, ...(flops === undefined ? {} : { tflops: flops / (ms * 1e-3) / 1e12 }) };
}

describe('bench rounds aggregation', () => {
  it('medianOf: odd and even counts, unsorted input left as is; empty refused', () => {
    const v = [3, 1, 2];
    expect(medianOf(v)).toBe(2);
    expect(v).toEqual([3, 1, 2]);
    expect(medianOf([4, 1, 3, 2])).toBe(2.5);
    expect(() => medianOf([])).toThrow(RangeError);
    expect(roundStats([5, 1, 9])).toEqual({ perRound: [5, 1, 9], median: 5, min: 1, max: 9 });
  });

  it('per workload: each impl over the rounds, and the speedup of each round (other / tsfuser), not the ratio of medians', () => {
    const rounds = [
      [row('gemm', 'tsfuser', 1.0), row('gemm', 'eager', 1.1), row('gemm', 'torch.compile', 0.9)],
      [row('gemm', 'tsfuser', 1.2), row('gemm', 'eager', 1.2), row('gemm', 'torch.compile', 1.3)],
      [row('gemm', 'tsfuser', 0.8), row('gemm', 'eager', 1.0), row('gemm', 'torch.compile', 0.84)],
    ];
    const s = aggregateRounds(rounds);
    expect(s.rounds).toBe(3);
    const [w] = s.workloads;
    expect(w?.workload).toBe('gemm');
    expect(w?.ms['tsfuser']).toEqual({ perRound: [1.0, 1.2, 0.8], median: 1.0, min: 0.8, max: 1.2 });
    const tc = w?.speedup['torch.compile'];
    expect(tc?.perRound.map((x) => +x.toFixed(6))).toEqual([0.9, 1.083333, 1.05]);
    expect(tc?.median).toBeCloseTo(1.05, 12);
    // The ratio of the medians would be 0.9 / 1.0: the per-round ratio is not that.
    expect(tc?.median).not.toBeCloseTo((w?.ms['torch.compile']?.median ?? 0) / (w?.ms['tsfuser']?.median ?? 1), 3);
    expect(w?.speedup['tsfuser']).toBeUndefined();
  });

  it('a round that lacks tsfuser (a failed workload) or PyTorch enters the medians but no ratio', () => {
    const s = aggregateRounds([
      [row('a', 'eager', 2), row('b', 'tsfuser', 1), row('b', 'eager', 3)],
      [row('a', 'tsfuser', 1), row('a', 'eager', 4), row('b', 'tsfuser', 2)],
    ]);
    const a = s.workloads.find((x) => x.workload === 'a');
    expect(a?.ms['eager']?.perRound).toEqual([2, 4]);
    expect(a?.speedup['eager']?.perRound).toEqual([4]);
    const b = s.workloads.find((x) => x.workload === 'b');
    expect(b?.speedup['eager']?.perRound).toEqual([3]);
    expect(s.workloads.map((x) => x.workload)).toEqual(['a', 'b']);
  });

  it('random rounds: medians, ranges and ratios match a direct computation; rows are rescaled to the medians', () => {
    const rng = new Random(seed);
    const impls = ['tsfuser', 'eager', 'torch.compile'];
    const workloads = ['w0', 'w1', 'w2', 'w3'];
    const n = 1 + Math.floor(rng.uniform() * 7);
    const rounds: BenchRow[][] = [];
    for (let r = 0; r < n; r += 1) {
      rounds.push(workloads.flatMap((w, i) => impls.filter(() => rng.uniform() > 0.15).map((impl) => row(w, impl, 0.1 + rng.uniform(), 1e8 * (i + 1), i === 0 ? 1e12 : undefined))));
    }
    const s = aggregateRounds(rounds);
    const sorted = (v: number[]): number[] => [...v].sort((a, b) => a - b);
    const direct = (v: number[]): number => {
      const x = sorted(v);
      return x.length % 2 === 1 ? (x[(x.length - 1) / 2] as number) : ((x[x.length / 2 - 1] as number) + (x[x.length / 2] as number)) / 2;
    };
    for (const w of s.workloads) {
      for (const impl of impls) {
        const got = rounds.flatMap((rs) => rs.filter((x) => x.workload === w.workload && x.impl === impl).map((x) => x.medianMs));
        const stats = w.ms[impl];
        if (got.length === 0) {
          expect(stats, `seed ${seed}`).toBeUndefined();
          continue;
        }
        expect(stats?.median, `seed ${seed}`).toBe(direct(got));
        expect([stats?.min, stats?.max], `seed ${seed}`).toEqual([Math.min(...got), Math.max(...got)]);
        if (impl === 'tsfuser') continue;
        const ratios = rounds.flatMap((rs) => {
          const own = rs.find((x) => x.workload === w.workload && x.impl === 'tsfuser');
          const other = rs.find((x) => x.workload === w.workload && x.impl === impl);
          return own === undefined || other === undefined ? [] : [other.medianMs / own.medianMs];
        });
        if (ratios.length === 0) expect(w.speedup[impl], `seed ${seed}`).toBeUndefined();
        else expect(w.speedup[impl]?.median, `seed ${seed}`).toBeCloseTo(direct(ratios), 12);
      }
    }
    for (const r of medianRows(rounds, s)) {
      const stats = s.workloads.find((x) => x.workload === r.workload)?.ms[r.impl];
      expect(r.medianMs, `seed ${seed}`).toBe(stats?.median);
      const bytes = 1e8 * (workloads.indexOf(r.workload) + 1);
      expect(r.gbps, `seed ${seed}`).toBeCloseTo(bytes / (r.medianMs * 1e-3) / 1e9, 6);
      expect(r.percentOfCopy, `seed ${seed}`).toBeCloseTo(r.gbps / 40, 6);
      if (r.workload === 'w0') expect(r.tflops, `seed ${seed}`).toBeCloseTo(1e12 / (r.medianMs * 1e-3) / 1e12, 6);
      else expect(r.tflops).toBeUndefined();
    }
  });

  it('formats one line per workload and impl with the median, the range and the speedup', () => {
    const s = aggregateRounds([
      [row('x', 'torch.compile', 1.1), row('x', 'tsfuser', 1.0), row('x', 'eager', 2.0)],
      [row('x', 'tsfuser', 1.1), row('x', 'eager', 2.2), row('x', 'torch.compile', 1.0)],
    ]);
    const text = formatBenchRounds(s);
    expect(text).toContain('2 rounds');
    const lines = text.split('\n').filter((l) => l.startsWith('| x |'));
    expect(lines.map((l) => l.split('|')[2]?.trim())).toEqual(['tsfuser', 'eager', 'torch.compile']);
    expect(lines[0]).toBe('| x | tsfuser | 1.050 | 1.000-1.100 |  |  |');
    // torch.compile: 1.1 / 1.0 and 1.0 / 1.1
    expect(lines[2]).toBe('| x | torch.compile | 1.050 | 1.000-1.100 | 1.005× | 0.909-1.100 |');
  });
});

describe('tsfuser bench --rounds', () => {
  it('parses a positive integer up to 50, default 1', () => {
    expect(parseRounds(undefined)).toBe(1);
    expect(parseRounds('5')).toBe(5);
    for (const bad of ['0', '-1', '2.5', 'x', '51', '']) expect(() => parseRounds(bad), bad).toThrow(/--rounds must be an integer from 1 to 50/);
  });

  it('rejects a bad --rounds, and --rounds with the sweep, before touching the GPU', async () => {
    const r = await runCli(['bench', '--rounds', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--rounds must be an integer from 1 to 50');
    const s = await runCli(['bench', '--suite', 'sweep', '--rounds', '3']);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('--rounds applies to the default suite');
  });
});
