// `tsfuser run <file>`: load a definition, make inputs, print the requested dumps, execute on
// the chosen backend, print one summary line per output, optionally compare against the
// reference evaluator (--check), save outputs as .npy, and with --profile run the definition
// --iters more times profiled (the first execute was the warm-up) and print profile-table.ts's
// report after everything else.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { EvaluationError } from '@tsfuser/fusion-ir';
import type { Tensor } from '@tsfuser/device';
import type { FusionDefinition } from '../definition/fusion-definition.js';
import { InputMismatchError } from '../errors.js';
import type { BackendName, ExecuteInput } from '../execute/backend.js';
import { resolveBackend } from '../execute/execute.js';
import { evaluateOnHost } from '../execute/reference-backend.js';
import { limitsFromEnv } from '../io/allocation-limits.js';
import { compareTensors } from '../io/compare.js';
import { explainSegments } from './explain.js';
import type { ParsedArgs } from './args.js';
import { paint, UsageError, type CliIo } from './console.js';
import { requestedDumps } from './dump-options.js';
import { DumpOptionError } from '../dumps/dump-options.js';
import { DEFAULT_TARGET, parseArch, parseDeviceProperties, type CompileTarget } from '../dumps/target.js';
import { outputLine } from './format-output.js';
import { loadDefinition } from './load-definition.js';
import { planInputs, uniformInputs } from './run-inputs.js';
import { prepareOutputDirectory, writeOutputFiles } from './save-outputs.js';
import { formatProfileTable, peakBandwidth, summarizeProfiles } from './profile-table.js';
import type { Backend } from '../execute/backend.js';
import type { GpuBackend } from '../execute/gpu-backend.js';
import type { ExecuteProfile } from '../definition/execution-state.js';

export const RUN_VALUE_FLAGS = ['backend', 'dump', 'seed', 'shape', 'inputs', 'save-outputs', 'device', 'arch', 'device-properties', 'iters'];
export const RUN_BOOLEAN_FLAGS = ['check', 'python', 'explain', 'profile', 'cuda-graph'];

/** Profiled calls of --profile without --iters. */
const DEFAULT_PROFILE_ITERS = 10;

const LARGE_RUN_ELEMENTS = 1 << 20;

function backendChoice(text: string | undefined): BackendName {
  const b = text ?? 'auto';
  if (b !== 'gpu' && b !== 'reference' && b !== 'auto') throw new UsageError(`--backend must be gpu, reference or auto, got '${b}'`);
  return b;
}

/** A decimal integer flag in [0, limit): Number() would also take '0x10', '1e3' and ' 7'. */
function intFlag(args: ParsedArgs, name: string, fallback: number, limit: number): number {
  const text = args.values.get(name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || !(n < limit)) throw new UsageError(`--${name} must be a decimal integer in [0, ${limit}), got '${text}'`);
  return n;
}

/** The definition's own dump (the compile-side ones come from execute). */
function printDefinitionDump(io: CliIo, dumps: ReadonlySet<string>, fd: FusionDefinition, python: boolean): void {
  if (!dumps.has('python_definition')) return;
  io.stdout('=== python_definition ===\n');
  io.stdout(fd.print());
  if (python) io.stdout(`\n${fd.printPython()}`);
}

/** --arch and --device-properties: the target of compile-side dumps without a GPU. */
function dumpTarget(args: ParsedArgs, io: CliIo): CompileTarget {
  const archText = args.values.get('arch');
  const propsFile = args.values.get('device-properties');
  const arch = archText === undefined ? DEFAULT_TARGET.arch : parseArch(archText, '--arch');
  if (propsFile === undefined) return { arch, device: DEFAULT_TARGET.device };
  let text: string;
  try {
    text = readFileSync(resolve(io.cwd, propsFile), 'utf8');
  } catch (error) {
    throw new UsageError(`--device-properties: cannot read ${propsFile}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { arch, device: parseDeviceProperties(text, `--device-properties ${propsFile}`) };
}

function numel(inputs: readonly ExecuteInput[]): number {
  return inputs.reduce<number>((n, v) => n + (typeof v === 'object' ? v.numel : 0), 0);
}

function isGpuBackend(b: Backend): b is GpuBackend {
  return 'device' in b && typeof (b as Partial<GpuBackend>).device === 'function';
}

/** The peak DRAM bandwidth of the backend's device, when it has one that reports it. */
function peakOf(backend: Backend, ordinal: number): ReturnType<typeof peakBandwidth> {
  return isGpuBackend(backend) ? peakBandwidth(backend.device(ordinal).properties) : null;
}

export async function runCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const file = args.positionals[0];
  if (file === undefined) throw new UsageError('tsfuser run: missing <file> (see tsfuser --help)');
  if (args.positionals.length > 1) throw new UsageError(`tsfuser run: unexpected argument '${args.positionals[1] ?? ''}'`);
  const dumps = requestedDumps(io.env, args.values.get('dump'));
  let target: CompileTarget;
  try {
    target = dumpTarget(args, io);
  } catch (error) {
    if (error instanceof DumpOptionError) throw new UsageError(error.message);
    throw error;
  }
  // python_definition is printed here (with --python's form); execute prints the rest.
  const executeDumps = new Set([...dumps].filter((d) => d !== 'python_definition'));
  const seed = intFlag(args, 'seed', 0, 2 ** 32);
  const device = intFlag(args, 'device', 0, 1024);
  const choice = backendChoice(args.values.get('backend'));
  const profileIters = intFlag(args, 'iters', DEFAULT_PROFILE_ITERS, 100_001);
  if (args.values.has('iters') && !args.booleans.has('profile')) throw new UsageError('--iters counts the profiled calls of --profile; add --profile');
  if (profileIters < 1) throw new UsageError('--iters must be at least 1');
  // --cuda-graph: every execute of this run asks the GPU backend for graph replay.
  const graph = args.booleans.has('cuda-graph') ? { cudaGraph: true } : {};
  const notes = (m: string): void => io.stderr(`${m}\n`);
  const limits = limitsFromEnv(io.env);

  // The output directory is checked (and made) before anything runs: a bad path fails at once.
  const saveText = args.values.get('save-outputs');
  const saveDir = saveText === undefined ? undefined : prepareOutputDirectory(saveText, io.cwd);

  const { definition, inputs: fileInputs } = await loadDefinition(file, io.cwd, { inputsLine: !args.values.has('inputs') });
  const backend = resolveBackend(choice, notes);
  printDefinitionDump(io, dumps, definition, args.booleans.has('python'));

  const started = Date.now();
  const plan = planInputs(definition.inputs(), fileInputs, {
    inputs: args.values.get('inputs'),
    shape: args.values.get('shape'),
    seed,
    cwd: io.cwd,
    limits,
  });
  let inputs = plan.inputs;
  const large = numel(inputs) >= LARGE_RUN_ELEMENTS;
  const progress = (m: string): void => {
    if (large) io.stderr(paint(io, 'dim', `[${((Date.now() - started) / 1000).toFixed(1)}s] ${m}\n`));
  };
  progress(`inputs ready (${numel(inputs)} elements); running on ${backend.name}`);
  let outputs: Tensor[];
  try {
    outputs = await definition.execute(inputs, { backend: choice, device, notes, dump: executeDumps, dumpsFromEnvironment: false, dumpSink: io.stdout, limits, target, dumpDirectory: io.cwd, ...graph });
  } catch (e) {
    // Default sizes may not fit the definition's broadcasts (dims the fusion maps together).
    if (!(plan.defaultGenerated && (e instanceof EvaluationError || e instanceof InputMismatchError))) throw e;
    io.stderr(`tsfuser: default input sizes do not fit (${e.message}); retrying with every symbolic dim = 8\n`);
    inputs = uniformInputs(definition.inputs(), seed, limits);
    outputs = await definition.execute(inputs, { backend: choice, device, notes, dump: executeDumps, dumpsFromEnvironment: false, dumpSink: io.stdout, limits, target, dumpDirectory: io.cwd, ...graph });
  }
  progress('done');
  // After the execute: the segmentation of the plan that ran (the builder's for these inputs when none ran).
  if (args.booleans.has('explain')) io.stdout(`=== fusion_ir_segments (--explain) ===\n${explainSegments(definition.fusionIr(), inputs, definition.lastExecutedPlan(), target)}`);
  io.stdout(`${file}: fusion id ${definition.id()}, ${definition.inputs().length} inputs ${plan.source}, backend ${backend.name}\n`);
  const hosts = outputs.map((t) => t.toHost());
  hosts.forEach((h, i) => io.stdout(`${outputLine(i, h)}\n`));

  let status = 0;
  if (args.booleans.has('check') && backend.name === 'reference') {
    // The outputs came from the reference evaluator itself: comparing them with it again would
    // check nothing, so say so instead of "passed".
    io.stdout('check: nothing independent to compare against: the outputs came from the reference evaluator itself (--check compares a GPU run with it)\n');
  } else if (args.booleans.has('check')) {
    progress('checking against the reference evaluator');
    const expected = evaluateOnHost(definition.fusionIr(), inputs, limits).map((t) => t.toHost());
    hosts.forEach((h, i) => {
      const ref = expected[i];
      const r = ref === undefined ? { ok: false as const, reason: 'missing reference output' } : compareTensors(h, ref);
      if (r.ok) {
        io.stdout(`check out${i}: ${paint(io, 'green', 'OK')} (max abs diff ${r.maxAbsDiff.toPrecision(3)})\n`);
      } else {
        status = 1;
        const m = 'mismatch' in r && r.mismatch !== undefined ? `; first at element ${r.mismatch.index}: ${r.mismatch.actual} vs ${r.mismatch.expected}` : '';
        io.stdout(`check out${i}: ${paint(io, 'red', 'MISMATCH')} ${r.reason}${m}\n`);
      }
    });
    io.stdout(status === 0 ? `check: ${paint(io, 'green', 'passed')} (${backend.name} vs reference)\n` : `check: ${paint(io, 'red', 'FAILED')}\n`);
  }

  if (saveDir !== undefined) {
    writeOutputFiles(saveDir, new Map(hosts.map((h, i) => [i, h])));
    io.stdout(`saved ${hosts.length} outputs to ${saveDir}/out<i>.npy\n`);
  }

  if (args.booleans.has('profile')) {
    if (backend.name === 'reference') {
      io.stdout('profile: nothing to profile: the reference backend launches no kernels\n');
      return status;
    }
    const profiles: ExecuteProfile[] = [];
    for (let i = 0; i < profileIters; i += 1) {
      for (const t of await definition.execute(inputs, { backend: choice, device, notes, dumpsFromEnvironment: false, limits, target, profile: true, ...graph })) t.dispose();
      profiles.push(definition.profile());
    }
    const note = profiles[0]?.note;
    if (note !== undefined) {
      io.stdout(`profile: nothing to profile: ${note}\n`);
      return status;
    }
    io.stdout(formatProfileTable(summarizeProfiles(profiles), peakOf(backend, device)));
    // Profiled calls record events around every entry (and never replay a graph): time as many
    // plain calls too. execute returns without waiting for the device, so this is host time
    // while the launch queue has room.
    const plain: number[] = [];
    for (let i = 0; i < profileIters; i += 1) {
      const t0 = performance.now();
      const outs = await definition.execute(inputs, { backend: choice, device, notes, dumpsFromEnvironment: false, limits, target, ...graph });
      plain.push(performance.now() - t0);
      for (const t of outs) t.dispose();
    }
    plain.sort((a, b) => a - b);
    const mid = plain[Math.floor(plain.length / 2)] ?? 0;
    io.stdout(`execute wall time per call without profiling${args.booleans.has('cuda-graph') ? ' (--cuda-graph: graph replay)' : ''}: ${(mid * 1000).toFixed(2)} us (median of ${plain.length})\n`);
  }
  return status;
}
