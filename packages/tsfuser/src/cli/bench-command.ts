// `tsfuser bench [--workloads a,b] [--iters N] [--rounds N] [--flush read|write] [--no-pytorch] [--pytorch-script f] [--json f] [--profile]`:
// runs the GPU benchmarks (see bench/run-bench.ts) and prints the table last (`--rounds N`: N
// alternating rounds of tsfuser and PyTorch, then the medians and per-round ratios, bench-rounds.ts).
// `tsfuser bench --suite sweep [--family f,…] [--dtype f32,bf16] [--sizes RxH,…|llm] [--offsets 2,4,8,16]
// [--chunk i/n | i] [--list]`: the size sweep (bench/run-sweep.ts), tables per family and a summary.

import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatBenchReport, runBench } from '../bench/run-bench.js';
import { formatBenchRounds } from '../bench/bench-rounds.js';
import { formatBenchProfiles } from './bench-profiles.js';
import { benchWorkloads } from '../bench/workloads.js';
import { runSweep } from '../bench/run-sweep.js';
import { formatSweepReport, mergeSweepReports, type SweepReport } from '../bench/sweep-report.js';
import { chunkOf, parseChunk, resolveChunk, parseDtypes, parseFamilies, parseSizes, pointName, sweepPoints, SweepSelectionError, type SweepSelection } from '../bench/sweep-points.js';
import type { ParsedArgs } from './args.js';
import { UsageError, type CliIo } from './console.js';

export const BENCH_VALUE_FLAGS = ['workloads', 'iters', 'rounds', 'json', 'pytorch-script', 'flush', 'suite', 'family', 'dtype', 'sizes', 'offsets', 'chunk', 'commit', 'merge'];
export const BENCH_BOOLEAN_FLAGS = ['no-pytorch', 'list', 'profile'];

/** `--rounds`: a positive integer (at most 50: each round runs PyTorch's side again); 1 when absent. */
export function parseRounds(text: string | undefined): number {
  if (text === undefined) return 1;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 50) throw new UsageError(`--rounds must be an integer from 1 to 50, got '${text}'`);
  return n;
}

function sweepSelection(args: ParsedArgs): SweepSelection {
  const family = args.values.get('family');
  const dtype = args.values.get('dtype');
  const sizes = args.values.get('sizes');
  const offsets = args.values.get('offsets');
  const hiddenOffsets = offsets?.split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`--offsets: '${s}' is not a non-negative integer`);
    return n;
  });
  return {
    ...(family === undefined ? {} : { families: parseFamilies(family) }),
    ...(dtype === undefined ? {} : { dtypes: parseDtypes(dtype) }),
    ...(sizes === undefined ? {} : { sizes: parseSizes(sizes) }),
    ...(hiddenOffsets === undefined ? {} : { hiddenOffsets }),
  };
}

async function sweepCommand(args: ParsedArgs, io: CliIo, iters: number): Promise<number> {
  const merge = args.values.get('merge');
  if (merge !== undefined) {
    // Chunks measured in separate device calls, printed as one report (no GPU needed).
    const reports = merge.split(',').map((f): SweepReport => {
      try {
        return JSON.parse(readFileSync(resolve(io.cwd, f.trim()), 'utf8')) as SweepReport;
      } catch (e) {
        throw new UsageError(`--merge: cannot read sweep report '${f}': ${(e as Error).message}`);
      }
    });
    const merged = mergeSweepReports(reports);
    const json = args.values.get('json');
    if (json !== undefined) writeFileSync(resolve(io.cwd, json), `${JSON.stringify(merged, null, 2)}\n`);
    io.stdout(formatSweepReport(merged));
    return 0;
  }
  let selection: SweepSelection;
  let chunk = { index: 0, count: 1 };
  try {
    selection = sweepSelection(args);
    const chunkText = args.values.get('chunk');
    if (chunkText !== undefined) chunk = resolveChunk(parseChunk(chunkText), sweepPoints(selection).length);
    if (args.booleans.has('list')) {
      const points = chunkOf(sweepPoints(selection), chunk.index, chunk.count);
      const of = chunkText === undefined ? '' : ` (chunk ${chunk.index + 1}/${chunk.count})`;
      io.stdout(`${points.map(pointName).join('\n')}\n${points.length} points${of}\n`);
      return 0;
    }
  } catch (e) {
    if (e instanceof SweepSelectionError) throw new UsageError(e.message);
    throw e;
  }
  const script = args.values.get('pytorch-script');
  const commit = args.values.get('commit');
  const report = await runSweep({
    selection,
    chunk,
    iters,
    pytorch: !args.booleans.has('no-pytorch'),
    cwd: io.cwd,
    log: (line) => io.stderr(`${line}\n`),
    ...(script === undefined ? {} : { pytorchScript: script }),
    ...(commit === undefined ? {} : { commit }),
  });
  const json = args.values.get('json');
  if (json !== undefined) writeFileSync(resolve(io.cwd, json), `${JSON.stringify(report, null, 2)}\n`);
  io.stdout(formatSweepReport(report));
  return 0;
}

export async function benchCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.positionals.length > 0) throw new UsageError(`tsfuser bench: unexpected argument '${args.positionals[0] ?? ''}'`);
  const suite = args.values.get('suite') ?? 'default';
  if (suite !== 'default' && suite !== 'sweep') throw new UsageError(`--suite must be default or sweep, got '${suite}'`);
  const itersText = args.values.get('iters') ?? (suite === 'sweep' ? '20' : '50');
  const iters = Number(itersText);
  if (!Number.isInteger(iters) || iters < 1) throw new UsageError(`--iters must be a positive integer, got '${itersText}'`);
  const rounds = parseRounds(args.values.get('rounds'));
  if (suite === 'sweep') {
    if (rounds !== 1) throw new UsageError('--rounds applies to the default suite (the sweep times each point beside torch.compile once)');
    return sweepCommand(args, io, iters);
  }
  const workloads = args.values.get('workloads')?.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const known = benchWorkloads().map((w) => w.name);
  const unknown = (workloads ?? []).filter((n) => !known.includes(n));
  if (unknown.length > 0) throw new UsageError(`--workloads: unknown ${unknown.join(', ')} (known: ${known.join(', ')})`);
  const flush = args.values.get('flush') ?? 'read';
  if (flush !== 'read' && flush !== 'write') throw new UsageError(`--flush must be read or write, got '${flush}'`);
  const script = args.values.get('pytorch-script');
  const report = await runBench({
    iters,
    flush,
    pytorch: !args.booleans.has('no-pytorch'),
    cwd: io.cwd,
    log: (line) => io.stderr(`${line}\n`),
    profile: args.booleans.has('profile'),
    rounds,
    ...(workloads === undefined ? {} : { workloads }),
    ...(script === undefined ? {} : { pytorchScript: script }),
  });
  const json = args.values.get('json');
  if (json !== undefined) writeFileSync(resolve(io.cwd, json), `${JSON.stringify(report, null, 2)}\n`);
  io.stdout(formatBenchReport(report));
  if (report.rounds !== undefined) io.stdout(`\n${formatBenchRounds(report.rounds)}`);
  if (report.profiles !== undefined) io.stdout(formatBenchProfiles(report.profiles, report.rows));
  return 0;
}
