// GPU check of random numbers (not a vitest suite: it needs a GPU).
//
//   pnpm gpu:bundle tsfuser-rng-suite && (on the GPU host) bash gpu-bundle/run.sh tsfuser-rng-suite
//
// Every RNG fixture (rand in four dtypes, dropout in three, uniform ranges, normals, two
// rand_likes) at three sizes, each under five pointwise schedules (the heuristic, 1-D and 2-D
// with other block widths and unroll factors, and misaligned inputs, which turn vectorization
// off), launched into poisoned outputs and compared with the reference evaluator element by
// element: uniform numbers and everything computed from them (dropout) bit for bit; normal
// numbers within the ulp error of the GPU's logf/sinf/cosf (8 ulp of Float, 1e-13 relative for
// Double, one 16-bit ulp for Half/BFloat16). Then one timing: dropout of a [16384, 4096] bf16
// tensor against the copy bandwidth. Prints a table and `N passed, M failed`; exits 1 on any
// failure.

import { evaluate, HostTensor, type DataType, type Fusion } from '@tsfuser/fusion-ir';
import { DeviceContext, FusionExecutor, isAvailable, l2Flusher, runtimeInfoFor, schedulerDevice, Tensor, timeDevice } from '@tsfuser/runtime';
import { PointwiseScheduler, SchedulerRegistry, type PointwiseOverrides } from '@tsfuser/scheduler';
import { rngCases, type RngCase } from '../../codegen/test/rng-fixtures.js';
import { randomHost, toDeviceInput, Random, type DeviceInput } from '../src/bench/device-inputs.js';
import { copyBandwidth } from '../src/bench/timing.js';

interface Variant {
  name: string;
  overrides: PointwiseOverrides;
  misalign: boolean;
}

const VARIANTS: Variant[] = [
  { name: 'heuristic', overrides: {}, misalign: false },
  { name: '1D bdimx=128 unroll=1', overrides: { breakPoint: 0, bdimx: 128, unroll: 1 }, misalign: false },
  { name: '1D bdimx=512 unroll=2', overrides: { breakPoint: 0, bdimx: 512, unroll: 2 }, misalign: false },
  { name: '2D bdimx=32 unroll=4', overrides: { breakPoint: 1, bdimx: 32, unroll: 4 }, misalign: false },
  { name: 'heuristic, misaligned inputs', overrides: {}, misalign: true },
];

const SIZES: [number, number][] = [[37, 131], [1024, 1000], [2048, 2048]];

interface Row {
  name: string;
  ok: boolean;
  detail: string;
}

/** Largest allowed |gpu − ref| for normal numbers (logf/sinf/cosf are not correctly rounded). */
function normalTolerance(dtype: DataType, ref: number): number {
  const a = Math.abs(ref);
  switch (dtype) {
    case 'Double':
      return 1e-13 * Math.max(1, a);
    case 'Float':
      return 8 * 2 ** -23 * Math.max(1, a);
    case 'Half':
      return 2 ** -10 * Math.max(2 ** -14, a);
    default:
      return 2 ** -7 * Math.max(2 ** -126, a);
  }
}

function compare(c: RngCase, got: HostTensor, want: HostTensor): string | null {
  const g = got.toFloat64Array();
  const w = want.toFloat64Array();
  if (g.length !== w.length) return `${g.length} elements, reference ${w.length}`;
  const approximate = c.name.includes('normal') || c.name.includes('randn');
  let bad = 0;
  let first = '';
  for (let i = 0; i < w.length; i += 1) {
    const a = g[i] as number;
    const b = w[i] as number;
    const same = Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)) || (a === 0 && b === 0);
    const ok = same || (approximate && Math.abs(a - b) <= normalTolerance(want.dtype, b));
    if (!ok) {
      if (bad === 0) first = `element ${i}: ${a} vs ${b}`;
      bad += 1;
    }
  }
  return bad === 0 ? null : `${bad} mismatches (${approximate ? 'ulp tolerance' : 'bit-exact'}), first ${first}`;
}

function runCase(device: DeviceContext, c: RngCase, v: Variant, rng: Random): string | null {
  const inputs: DeviceInput[] = c.inputSizes.map((s) => {
    const strides = s.map((_, d) => s.slice(d + 1).reduce((a, b) => a * b, 1));
    return toDeviceInput(device, randomHost(c.inputDtype, s, strides, rng), v.misalign);
  });
  const outputs: Tensor[] = [];
  try {
    const args = inputs.map((i) => i.tensor);
    const info = runtimeInfoFor(c.fusion, args, schedulerDevice(device.properties));
    const exec = FusionExecutor.compile(device, c.fusion, info, { registry: new SchedulerRegistry([new PointwiseScheduler(v.overrides)]) });
    const want = evaluate(c.fusion, inputs.map((i) => i.host)) as HostTensor[];
    for (const w of want) {
      const t = Tensor.emptyDevice(device, w.dtype, w.sizes);
      t.poison();
      outputs.push(t);
    }
    exec.launch([...args.map((a) => a.asKernelArgument()), ...outputs.map((o) => o.asKernelArgument())]);
    device.synchronize();
    const problems = outputs.map((o, k) => compare(c, o.toHost(), want[k] as HostTensor)).filter((p) => p !== null);
    return problems.length === 0 ? null : problems.join('; ');
  } finally {
    for (const o of outputs) o.dispose();
    for (const i of inputs) i.owner.dispose();
  }
}

function timeDropout(device: DeviceContext, rows: Row[]): void {
  const c = rngCases(16384, 4096).find((x) => x.name === 'dropout_BFloat16') as RngCase;
  const fusion: Fusion = c.fusion;
  const rng = new Random(3);
  const sizes = c.inputSizes[0] as number[];
  const input = toDeviceInput(device, randomHost('BFloat16', sizes, [sizes[1] as number, 1], rng), false);
  const out = Tensor.emptyDevice(device, 'BFloat16', sizes);
  const flusher = l2Flusher(device);
  try {
    const info = runtimeInfoFor(fusion, [input.tensor], schedulerDevice(device.properties));
    const exec = FusionExecutor.compile(device, fusion, info);
    const values = [input.tensor.asKernelArgument(), out.asKernelArgument()];
    const ms = timeDevice(device, flusher, () => exec.launch(values), 30);
    const bytes = 2 * 2 * sizes.reduce((a, b) => a * b, 1);
    const copyGbs = copyBandwidth(device, flusher, 10);
    const gbs = bytes / (ms * 1e-3) / 1e9;
    rows.push({
      name: 'timing: dropout bf16 [16384, 4096]',
      ok: true,
      detail: `${(ms * 1000).toFixed(1)} µs, ${gbs.toFixed(0)} GB/s (${((100 * gbs) / copyGbs).toFixed(0)}% of copy ${copyGbs.toFixed(0)} GB/s), grid ${exec.kernel.launch.grid.join('x')} block ${exec.kernel.launch.block.join('x')}`,
    });
  } finally {
    flusher.dispose();
    out.dispose();
    input.owner.dispose();
  }
}

function main(): void {
  const availability = isAvailable();
  if (!availability.available) {
    console.log(`no GPU: ${availability.reason ?? 'unknown reason'}`);
    process.exitCode = 1;
    return;
  }
  const device = DeviceContext.create(0);
  const rng = new Random(20241124);
  const rows: Row[] = [];
  for (const [r, k] of SIZES) {
    for (const c of rngCases(r, k)) {
      for (const v of VARIANTS) {
        if (v.misalign && c.inputSizes.length === 0) continue;
        const name = `${c.name} [${r}, ${k}] ${v.name}`;
        try {
          const problem = runCase(device, c, v, rng);
          rows.push({ name, ok: problem === null, detail: problem ?? 'ok' });
        } catch (error) {
          rows.push({ name, ok: false, detail: `${(error as Error).name}: ${(error as Error).message.split('\n')[0] ?? ''}` });
        }
      }
    }
  }
  try {
    timeDropout(device, rows);
  } catch (error) {
    rows.push({ name: 'timing: dropout bf16 [16384, 4096]', ok: false, detail: (error as Error).message.split('\n')[0] ?? '' });
  }
  const failed = rows.filter((x) => !x.ok);
  for (const x of failed) console.log(`FAIL ${x.name}: ${x.detail}`);
  console.log('| case | result |\n|---|---|');
  for (const x of rows.filter((y) => y.name.startsWith('timing') || y.name.includes('[1024, 1000] heuristic'))) console.log(`| ${x.name} | ${x.detail} |`);
  console.log(`${rows.length - failed.length} passed, ${failed.length} failed`);
  process.exitCode = failed.length === 0 ? 0 : 1;
}

main();
