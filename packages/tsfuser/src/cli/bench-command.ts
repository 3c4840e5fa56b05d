// `tsfuser bench [--workloads a,b] [--iters N] [--flush read|write] [--no-pytorch] [--pytorch-script f] [--json f]`:
// runs the GPU benchmarks (see bench/run-bench.ts) and prints the table last.

import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatBenchReport, runBench } from '../bench/run-bench.js';
import { benchWorkloads } from '../bench/workloads.js';
import type { ParsedArgs } from './args.js';
import { UsageError, type CliIo } from './console.js';

export const BENCH_VALUE_FLAGS = ['workloads', 'iters', 'json', 'pytorch-script', 'flush'];
export const BENCH_BOOLEAN_FLAGS = ['no-pytorch'];

export async function benchCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.positionals.length > 0) throw new UsageError(`tsfuser bench: unexpected argument '${args.positionals[0] ?? ''}'`);
  const itersText = args.values.get('iters') ?? '50';
  const iters = Number(itersText);
  if (!Number.isInteger(iters) || iters < 1) throw new UsageError(`--iters must be a positive integer, got '${itersText}'`);
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
    ...(workloads === undefined ? {} : { workloads }),
    ...(script === undefined ? {} : { pytorchScript: script }),
  });
  const json = args.values.get('json');
  if (json !== undefined) writeFileSync(resolve(io.cwd, json), `${JSON.stringify(report, null, 2)}\n`);
  io.stdout(formatBenchReport(report));
  return 0;
}
