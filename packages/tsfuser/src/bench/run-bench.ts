// `tsfuser bench`: times the benchmark workloads on the GPU through the cached execute path and,
// in the same run, PyTorch eager and torch.compile on the same workloads (tools/bench/
// pytorch_bench.py with the host's Python), plus host overhead and compile times. The result is
// one table; `--json` also writes it as data. `rounds` > 1 alternates the two sides that many
// times (each round: every workload through tsfuser, then PyTorch) and reports the medians over
// rounds and the per-round ratios (bench-rounds.ts).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { dataTypeSize, HostTensor, type DataType } from '@tsfuser/fusion-ir';
import { Tensor, type DeviceContext } from '@tsfuser/device';
import { FusionDefinition } from '../definition/fusion-definition.js';
import type { ExecuteProfile } from '../definition/execution-state.js';
import { createGpuBackend, type GpuBackend } from '../execute/gpu-backend.js';
import { BackendUnavailableError } from '../errors.js';
import { randomHost, randomIndices, toDeviceInput, Random, type DeviceInput } from './device-inputs.js';
import { copyBandwidth, hostMicroseconds, l2Flusher, timeDevice, type FlushMode } from './timing.js';
import { benchWorkloads, tinyWorkload, type StepArgument, type Workload } from './workloads.js';
import { aggregateRounds, medianRows, type BenchRounds } from './bench-rounds.js';

export interface BenchOptions {
  workloads?: readonly string[];
  iters: number;
  /** Run tools/bench/pytorch_bench.py (path, or found from the working directory up). */
  pytorch: boolean;
  pytorchScript?: string;
  /** How L2 is flushed before each timed run (timing.ts); PyTorch is flushed the same way. */
  flush?: FlushMode;
  cwd: string;
  log: (line: string) => void;
  /** After timing, run each workload's definitions 5 more times with fd.profile()'s per-kernel events. */
  profile?: boolean;
  /** Rounds of tsfuser then PyTorch over every workload (default 1: one of each, as before). */
  rounds?: number;
}

/** One definition of a profiled workload: its profiles (one per call) and the timed step's median. */
export interface BenchProfile {
  workload: string;
  /** The definition's name in the workload (`build` for the first, then the steps' names). */
  step: string;
  profiles: ExecuteProfile[];
  /** The workload's timed median (every definition together), for the gap between kernels. */
  workloadMedianMs: number;
}

export interface BenchRow {
  workload: string;
  impl: string;
  medianMs: number;
  gbps: number;
  percentOfCopy: number;
  /** % of a device-to-device copy moving the same number of bytes (read + write). */
  percentOfSameSizeCopy: number;
  /** TFLOP/s of a GEMM workload (its flops over the median time). */
  tflops?: number;
}

export interface BenchReport {
  device: string;
  date: string;
  flush: FlushMode;
  copyGbps: number;
  /** Per workload: GB/s of a copy with the workload's traffic. */
  sameSizeCopyGbps: Record<string, number>;
  rows: BenchRow[];
  hostOverheadUs: { execute: number; executorCache: number; pytorchEager?: number };
  compile: { coldMs: number; coldNvrtcMs: number; diskMs: number; memoryHitMs: number };
  notes: string[];
  /** `--profile`: per workload and definition, the per-kernel profiles (device-resident inputs). */
  profiles?: BenchProfile[];
  /** `rounds` > 1: medians and per-round ratios over the rounds (`rows` are then at the medians). */
  rounds?: BenchRounds;
}

interface Uploaded {
  args: (Tensor | number)[];
  owned: DeviceInput[];
}

function upload(device: DeviceContext, w: Workload, rng: Random): Uploaded {
  const owned: DeviceInput[] = [];
  const args = w.inputs.map((i): Tensor | number => {
    if (i.scalar !== undefined) return i.scalar;
    if (i.uninitialized === true) {
      const t = Tensor.emptyDevice(device, i.dtype, i.sizes);
      t.poison();
      owned.push({ tensor: t, host: HostTensor.empty(i.dtype, [0]), owner: t });
      return t;
    }
    if (i.tiled === true) {
      const d = tiledInput(device, i.dtype, i.sizes, rng, i.scale ?? 1);
      owned.push(d);
      return d.tensor;
    }
    const host = i.values !== undefined ? i.values() : i.indexBound === undefined ? scaled(randomHost(i.dtype, i.sizes, denseStrides(i.sizes), rng, i.positive === true), i.scale ?? 1) : randomIndices(i.dtype, i.sizes, i.indexBound, rng);
    const d = toDeviceInput(device, host, false);
    owned.push(d);
    return d.tensor;
  });
  return { args, owned };
}

/** `host` (dense, floating) with every value multiplied by `scale` (rounded to its dtype). */
function scaled(host: HostTensor, scale: number): HostTensor {
  if (scale === 1) return host;
  const flat = new HostTensor(host.dtype, [host.numel], [1], host.data);
  for (let i = 0; i < host.numel; i += 1) flat.setFlat(i, flat.getNumber(i) * scale);
  return host;
}

/** A dense device tensor filled with one random block of at most 2^20 elements (times `scale`), repeated. */
function tiledInput(device: DeviceContext, dtype: DataType, sizes: readonly number[], rng: Random, scale = 1): DeviceInput {
  const numel = sizes.reduce((a, b) => a * b, 1);
  const block = Math.min(numel, 1 << 20);
  const staged = toDeviceInput(device, scaled(randomHost(dtype, [block], [1], rng, false), scale), false);
  const t = Tensor.emptyDevice(device, dtype, sizes);
  const blockBytes = block * dataTypeSize(dtype);
  for (let at = 0; at < numel; at += block) {
    const bytes = Math.min(block, numel - at) * dataTypeSize(dtype);
    device.copyDeviceToDevice(t.dataPtr + BigInt(at * dataTypeSize(dtype)), staged.tensor.dataPtr, Math.min(bytes, blockBytes));
  }
  staged.owner.dispose();
  return { tensor: t, host: HostTensor.empty(dtype, [0]), owner: t };
}

function denseStrides(sizes: readonly number[]): number[] {
  const out = new Array<number>(sizes.length);
  let acc = 1;
  for (let d = sizes.length - 1; d >= 0; d -= 1) {
    out[d] = acc;
    acc *= Math.max(1, sizes[d] as number);
  }
  return out;
}

function findScript(cwd: string, explicit: string | undefined): string | undefined {
  if (explicit !== undefined) return resolve(cwd, explicit);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, 'tools', 'bench', 'pytorch_bench.py');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

interface PytorchLine {
  workload?: string;
  impl?: string;
  median_ms?: number;
  gbps?: number;
  copy_gbps?: number;
  host_overhead_us?: number;
}

function runPytorch(script: string, names: readonly string[], iters: number, flush: FlushMode, log: (l: string) => void): PytorchLine[] {
  const out = join(mkdtempSync(join(tmpdir(), 'tsfuser-bench-')), 'pytorch.jsonl');
  const python = process.env['PYTHON'] ?? 'python3';
  log(`running ${python} ${script} (eager and torch.compile) …`);
  const r = spawnSync(python, [script, '--workloads', names.join(','), '--iters', String(iters), '--flush', flush, '--out', out, '--host-overhead'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (r.status !== 0 || !existsSync(out)) {
    log(`pytorch_bench.py failed (status ${String(r.status)}): ${(r.stderr ?? '').split('\n').slice(-5).join(' | ')}`);
    return [];
  }
  return readFileSync(out, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as PytorchLine);
}

async function measureCompile(w: Workload, rng: Random, log: (l: string) => void): Promise<BenchReport['compile']> {
  // A constant no other run used makes the source (and so the cubin key) new: a true cold compile.
  const salt = 1 + Math.floor(rng.uniform() * 1e6) / 1e7;
  const build = (): FusionDefinition =>
    FusionDefinition.build((fd) => {
      const t0 = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: 'Float' });
      const t1 = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: 'Float' });
      fd.addOutput(fd.ops.mul(fd.ops.add(t0, t1), fd.defineConstant(salt)));
    });
  const directory = mkdtempSync(join(tmpdir(), 'tsfuser-bench-cubins-'));
  const run = async (backend: GpuBackend, fd: FusionDefinition): Promise<number> => {
    const device = backend.device(0);
    const ins = [0, 1].map(() => toDeviceInput(device, randomHost('Float', [128, 1024], [1024, 1], rng), false));
    const t0 = performance.now();
    const outs = await fd.execute(ins.map((i) => i.tensor), { backend });
    const ms = performance.now() - t0;
    for (const t of [...outs, ...ins.map((i) => i.owner)]) t.dispose();
    return ms;
  };
  const cold = createGpuBackend({ cubinDirectory: directory });
  const fd = build();
  const coldMs = await run(cold, fd);
  const report = cold.executorCache(fd.fusionIr()).stats.compiles[0];
  const memoryFd = build();
  const memoryHitMs = await run(cold, memoryFd);
  const disk = createGpuBackend({ cubinDirectory: directory });
  const diskMs = await run(disk, build());
  log(`compile: cold ${coldMs.toFixed(1)} ms (NVRTC ${report?.nvrtcMs.toFixed(1) ?? '?'} ms), in-process cubin hit ${memoryHitMs.toFixed(2)} ms, disk cache ${diskMs.toFixed(2)} ms (${w.name}-like kernel)`);
  return { coldMs, coldNvrtcMs: report?.nvrtcMs ?? NaN, diskMs, memoryHitMs };
}

/** Profiled calls per workload with `--profile` (after the timed ones). */
const PROFILED_CALLS = 5;

export async function runBench(options: BenchOptions): Promise<BenchReport> {
  const backend = createGpuBackend();
  const a = backend.availability();
  if (!a.available) throw new BackendUnavailableError(`tsfuser bench needs a GPU: ${a.reason}`);
  const { log } = options;
  const device = backend.device(0);
  const rng = new Random(20261123);
  const flushMode = options.flush ?? 'read';
  const flusher = l2Flusher(device, flushMode);
  const notes: string[] = [];
  const all = benchWorkloads();
  const chosen = options.workloads === undefined ? all : all.filter((w) => options.workloads?.includes(w.name));
  try {
    const copyGbps = copyBandwidth(device, flusher, options.iters);
    log(`device ${device.properties.name}: device-to-device copy ${copyGbps.toFixed(0)} GB/s`);
    const profiles: BenchProfile[] = [];
    const sameSize: Record<string, number> = {};
    for (const w of chosen) {
      sameSize[w.name] = copyBandwidth(device, flusher, options.iters, Math.round(w.bytes / 2 / 256) * 256);
      log(`${w.name}: same-size copy ${(sameSize[w.name] as number).toFixed(0)} GB/s`);
    }
    const pct = (name: string, gbps: number): number => (100 * gbps) / (sameSize[name] ?? copyGbps);
    const roundCount = options.rounds ?? 1;
    const script = options.pytorch ? findScript(options.cwd, options.pytorchScript) : undefined;
    if (options.pytorch && script === undefined) notes.push('pytorch: tools/bench/pytorch_bench.py not found');
    let pytorchEager: number | undefined;
    const rounds: BenchRow[][] = [];
    for (let round = 0; round < roundCount; round += 1) {
      const label = roundCount > 1 ? `round ${round + 1}/${roundCount}: ` : '';
      const rows: BenchRow[] = [];
      for (const w of chosen) {
        const { args, owned } = upload(device, w, rng);
        try {
          const run = await prepareSteps(w, args, backend);
          const ms = timeDevice(device, flusher, () => run.once().forEach((t) => t.dispose()), options.iters);
          const gbps = w.bytes / (ms * 1e-3) / 1e9;
          rows.push({ workload: w.name, impl: 'tsfuser', medianMs: ms, gbps, percentOfCopy: (100 * gbps) / copyGbps, percentOfSameSizeCopy: pct(w.name, gbps), ...tflopsOf(w, ms) });
          log(`${label}${w.name}: ${ms.toFixed(3)} ms, ${gbps.toFixed(0)} GB/s (${run.kernels()} kernel${run.kernels() === 1 ? '' : 's'}${run.steps > 1 ? ` over ${run.steps} definitions` : ''})`);
          // Profiles once (the first round's): they time kernels, not the comparison.
          if (options.profile === true && round === 0) {
            const byStep = new Map<string, ExecuteProfile[]>();
            for (let i = 0; i < PROFILED_CALLS; i += 1) for (const { step, profile } of await run.profiled()) byStep.set(step, [...(byStep.get(step) ?? []), profile]);
            for (const [step, calls] of byStep) profiles.push({ workload: w.name, step, profiles: calls, workloadMedianMs: ms });
          }
        } catch (error) {
          const message = `${w.name}: ${(error as Error).name}: ${(error as Error).message.split('\n')[0] ?? ''}`;
          if (round === 0) notes.push(message);
          log(`${label}${message}`);
        } finally {
          for (const i of owned) i.owner.dispose();
        }
      }
      if (script !== undefined) {
        if (label !== '') log(`${label}PyTorch`);
        for (const line of runPytorch(script, chosen.map((w) => w.name), options.iters, flushMode, log)) {
          if (line.host_overhead_us !== undefined) pytorchEager = line.host_overhead_us;
          if (line.workload === undefined || line.impl === undefined || line.median_ms === undefined) continue;
          const gbps = line.gbps ?? 0;
          const w = chosen.find((c) => c.name === line.workload);
          rows.push({ workload: line.workload, impl: line.impl, medianMs: line.median_ms, gbps, percentOfCopy: (100 * gbps) / copyGbps, percentOfSameSizeCopy: pct(line.workload, gbps), ...(w === undefined ? {} : tflopsOf(w, line.median_ms)) });
        }
      }
      rounds.push(rows);
    }
    const summary = roundCount > 1 ? aggregateRounds(rounds) : undefined;
    const rows = summary === undefined ? (rounds[0] ?? []) : medianRows(rounds, summary);

    const tiny = tinyWorkload();
    const tinyFd = tiny.build();
    const { args: tinyArgs, owned: tinyInputs } = upload(device, tiny, rng);
    const viaExecute = await hostMicroseconds(device, async () => {
      const outs = await tinyFd.execute(tinyArgs, { backend });
      for (const t of outs) t.dispose();
    }, 2000);
    const cache = backend.executorCache(tinyFd.fusionIr());
    const viaCache = await hostMicroseconds(device, () => {
      for (const t of cache.runFusion(tinyArgs)) t.dispose();
    }, 2000);
    for (const i of tinyInputs) i.owner.dispose();
    log(`host overhead (2x4x8, cached): fd.execute ${viaExecute.toFixed(1)} µs/call, FusionExecutorCache.runFusion ${viaCache.toFixed(1)} µs/call`);

    const compile = await measureCompile(tiny, rng, log);
    const report: BenchReport = {
      device: device.properties.name,
      date: new Date().toISOString().slice(0, 10),
      flush: flushMode,
      copyGbps,
      sameSizeCopyGbps: sameSize,
      rows,
      hostOverheadUs: { execute: viaExecute, executorCache: viaCache, ...(pytorchEager === undefined ? {} : { pytorchEager }) },
      compile,
      notes,
      ...(options.profile === true ? { profiles } : {}),
      ...(summary === undefined ? {} : { rounds: summary }),
    };
    return report;
  } finally {
    flusher.dispose();
  }
}

/** A workload's definitions compiled (one execute each) and a function running them all once through their executor caches. */
async function prepareSteps(
  w: Workload,
  args: readonly (Tensor | number)[],
  backend: GpuBackend,
): Promise<{ once: () => Tensor[]; kernels: () => number; steps: number; profiled: () => Promise<{ step: string; profile: ExecuteProfile }[]> }> {
  const first = w.build();
  // `build`'s definition reads the first inputs (all of them without steps); later steps name theirs.
  const steps: { fd: FusionDefinition; args: readonly StepArgument[] | null }[] = [{ fd: first, args: null }, ...(w.steps ?? []).map((s) => ({ fd: s.build(), args: s.args }))];
  const firstArgs = w.steps === undefined ? [...args] : args.slice(0, first.fusionIr().inputs.length);
  const argsOf = (outs: readonly Tensor[][], j: number): (Tensor | number)[] => {
    const spec = steps[j]?.args ?? null;
    if (spec === null) return firstArgs;
    return spec.map((a) => {
      const v = 'input' in a ? args[a.input] : outs[a.step]?.[a.output];
      if (v === undefined) throw new Error(`${w.name}: step ${j} argument ${JSON.stringify(a)} does not exist`);
      return v;
    });
  };
  const warm: Tensor[][] = [];
  for (let j = 0; j < steps.length; j += 1) warm.push(await (steps[j] as (typeof steps)[number]).fd.execute(argsOf(warm, j), { backend }));
  warm.flat().forEach((t) => t.dispose());
  const caches = steps.map((s) => backend.executorCache(s.fd.fusionIr()));
  return {
    once: () => {
      const outs: Tensor[][] = [];
      caches.forEach((c, j) => outs.push(c.runFusion(argsOf(outs, j))));
      return outs.flat();
    },
    kernels: () => caches.reduce((a, c) => a + c.stats.kernels, 0),
    steps: steps.length,
    // Each definition once with profile events, in order (later steps read the earlier outputs).
    profiled: async () => {
      const outs: Tensor[][] = [];
      const got: { step: string; profile: ExecuteProfile }[] = [];
      for (let j = 0; j < steps.length; j += 1) {
        const step = steps[j] as (typeof steps)[number];
        outs.push(await step.fd.execute(argsOf(outs, j), { backend, profile: true }));
        got.push({ step: j === 0 ? w.name : (w.steps?.[j - 1]?.name ?? `step ${j}`), profile: step.fd.profile() });
      }
      outs.flat().forEach((t) => t.dispose());
      return got;
    },
  };
}

function tflopsOf(w: Workload, ms: number): { tflops?: number } {
  return w.flops === undefined ? {} : { tflops: w.flops / (ms * 1e-3) / 1e12 };
}

/** The report as the table `tsfuser bench` prints last. */
export function formatBenchReport(r: BenchReport): string {
  const lines: string[] = [];
  lines.push(`tsfuser bench — ${r.device}, ${r.date}; copy floor ${r.copyGbps.toFixed(0)} GB/s (device-to-device, read+write); L2 flushed by a ${r.flush} of 512 MiB before each run`);
  lines.push('');
  lines.push(`| workload | impl | median ms | GB/s | % of copy | % of same-size copy |`);
  lines.push(`|---|---|---:|---:|---:|---:|`);
  const order = ['tsfuser', 'eager', 'torch.compile'];
  const sorted = [...r.rows].sort((a, b) => a.workload.localeCompare(b.workload) || order.indexOf(a.impl) - order.indexOf(b.impl));
  for (const row of sorted) {
    lines.push(`| ${row.workload} | ${row.impl} | ${row.medianMs.toFixed(3)} | ${row.gbps.toFixed(0)} | ${row.percentOfCopy.toFixed(1)}% | ${row.percentOfSameSizeCopy.toFixed(1)}% |`);
  }
  // GEMM workloads are compute-bound: their TFLOP/s, in a table of their own (the one above keeps its columns).
  const gemmRows = sorted.filter((row) => row.tflops !== undefined);
  if (gemmRows.length > 0) {
    lines.push('', '| GEMM workload | impl | median ms | TFLOP/s |', '|---|---|---:|---:|');
    for (const row of gemmRows) lines.push(`| ${row.workload} | ${row.impl} | ${row.medianMs.toFixed(3)} | ${(row.tflops as number).toFixed(0)} |`);
  }
  lines.push('');
  const h = r.hostOverheadUs;
  lines.push(`host overhead per cached call (2x4x8): fd.execute ${h.execute.toFixed(1)} µs, FusionExecutorCache.runFusion ${h.executorCache.toFixed(1)} µs` + (h.pytorchEager === undefined ? '' : `, PyTorch eager ${h.pytorchEager.toFixed(1)} µs`));
  lines.push(`compile of one pointwise kernel: cold ${r.compile.coldMs.toFixed(1)} ms (NVRTC ${r.compile.coldNvrtcMs.toFixed(1)} ms), from disk cache ${r.compile.diskMs.toFixed(2)} ms, in-process hit ${r.compile.memoryHitMs.toFixed(2)} ms`);
  for (const n of r.notes) lines.push(`note: ${n}`);
  return `${lines.join('\n')}\n`;
}

