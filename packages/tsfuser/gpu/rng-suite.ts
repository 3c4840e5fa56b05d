// GPU check of random numbers (not a vitest suite: it needs a GPU).
//
//   pnpm gpu:bundle tsfuser-rng-suite && (on the GPU host) bash gpu-bundle/run.sh tsfuser-rng-suite
//
// Every RNG fixture (rand in four dtypes, dropout in three, uniform ranges, normals, two
// rand_likes) at two sizes, each under five pointwise schedules (the heuristic, 1-D and 2-D
// with other block widths and unroll factors, and misaligned inputs, which turn vectorization
// off), launched into poisoned outputs and compared with the reference evaluator element by
// element: uniform numbers bit for bit; dropout's mask bit for bit (16-bit dropout entirely, Float
// kept values within one ulp of the scale multiply); normal numbers within the ulp error of the GPU's logf/sinf/cosf (8 ulp of Float, 1e-13 relative for
// Double, one 16-bit ulp for Half/BFloat16). Then dropout + residual + layer_norm (bf16)
// through the default registry — one inner persistent kernel — against the reference within
// two bf16 ulps; and timings of dropout alone and with the layer_norm, bf16 [16384, 4096],
// against the copy bandwidth. Prints a table and `N passed, M failed`; exits 1 on any failure.

import { evaluate, HostTensor, type DataType, type Fusion } from '@tsfuser/fusion-ir';
import { DeviceContext, isAvailable, l2Flusher, Tensor, timeDevice } from '@tsfuser/device';
import { FusionExecutor, runtimeInfoFor, schedulerDevice } from '@tsfuser/runtime';
import { PointwiseScheduler, SchedulerRegistry, type PointwiseOverrides } from '@tsfuser/scheduler';
import { dropoutResidualLayerNorm, rngCases, type RngCase } from '@tsfuser/test-support';
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

// The reference (Philox in JS) is evaluated once per case and size and shared by the five
// schedules: 2048×2048 per schedule took minutes of host time on the first GPU run.
const SIZES: [number, number][] = [[37, 131], [1024, 1000]];

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
  // Dropout in Float: the mask must be bit-exact (which elements are zero), the kept values
  // x · 1/(1−p) within one Float ulp — the GPU multiplies by the scale rounded to float, as
  // PyTorch's and nvFuser's kernels do, the reference evaluator by the double scale, rounding once.
  const scaled = c.name.startsWith('dropout') && want.dtype === 'Float';
  let bad = 0;
  let first = '';
  for (let i = 0; i < w.length; i += 1) {
    const a = g[i] as number;
    const b = w[i] as number;
    const same = Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)) || (a === 0 && b === 0);
    const oneUlp = scaled && a !== 0 && b !== 0 && Math.abs(a - b) <= 2 ** -23 * Math.abs(b);
    const ok = same || oneUlp || (approximate && Math.abs(a - b) <= normalTolerance(want.dtype, b));
    if (!ok) {
      if (bad === 0) first = `element ${i}: ${a} vs ${b}`;
      bad += 1;
    }
  }
  return bad === 0 ? null : `${bad} mismatches (${approximate ? 'ulp tolerance' : scaled ? 'mask bit-exact, values within 1 ulp' : 'bit-exact'}), first ${first}`;
}

function runCase(device: DeviceContext, c: RngCase, v: Variant, hosts: readonly HostTensor[], want: readonly HostTensor[]): string | null {
  const inputs: DeviceInput[] = hosts.map((h) => toDeviceInput(device, h, v.misalign));
  const outputs: Tensor[] = [];
  try {
    const args = inputs.map((i) => i.tensor);
    const info = runtimeInfoFor(c.fusion, args, schedulerDevice(device.properties));
    const exec = FusionExecutor.compile(device, c.fusion, info, { registry: new SchedulerRegistry([new PointwiseScheduler(v.overrides)]) });
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

/** Times one bf16 fusion over [16384, 4096] inputs (default registry) against the copy bandwidth. */
function timeFusion(device: DeviceContext, rows: Row[], name: string, fusion: Fusion, inputCount: number): void {
  const rng = new Random(3);
  const sizes = [16384, 4096];
  const inputs = Array.from({ length: inputCount }, () => toDeviceInput(device, randomHost('BFloat16', sizes, [4096, 1], rng), false));
  const out = Tensor.emptyDevice(device, 'BFloat16', sizes);
  const flusher = l2Flusher(device);
  try {
    const args = inputs.map((i) => i.tensor);
    const info = runtimeInfoFor(fusion, args, schedulerDevice(device.properties));
    const exec = FusionExecutor.compile(device, fusion, info);
    const values = [...args.map((a) => a.asKernelArgument()), out.asKernelArgument()];
    const ms = timeDevice(device, flusher, () => exec.launch(values), 30);
    const bytes = 2 * (inputCount + 1) * 16384 * 4096;
    const copyGbs = copyBandwidth(device, flusher, 10);
    const gbs = bytes / (ms * 1e-3) / 1e9;
    rows.push({
      name: `timing: ${name} bf16 [16384, 4096]`,
      ok: true,
      detail: `${exec.kernel.params.schedulerType}, ${(ms * 1000).toFixed(1)} µs, ${gbs.toFixed(0)} GB/s (${((100 * gbs) / copyGbs).toFixed(0)}% of copy ${copyGbs.toFixed(0)} GB/s), grid ${exec.kernel.launch.grid.join('x')} block ${exec.kernel.launch.block.join('x')}`,
    });
  } finally {
    flusher.dispose();
    out.dispose();
    for (const i of inputs) i.owner.dispose();
  }
}

/** dropout + residual + layer_norm through the default registry (one inner persistent kernel) against the reference. */
function checkLayerNorm(device: DeviceContext, rows: Row[], sizes: [number, number]): void {
  const name = `dropout_residual_layer_norm [${sizes.join(', ')}]`;
  const rng = new Random(sizes[0] + sizes[1]);
  const fusion = dropoutResidualLayerNorm();
  const inputs = [0, 1].map(() => toDeviceInput(device, randomHost('BFloat16', sizes, [sizes[1], 1], rng), false));
  const out = Tensor.emptyDevice(device, 'BFloat16', sizes);
  try {
    const args = inputs.map((i) => i.tensor);
    const exec = FusionExecutor.compile(device, fusion, runtimeInfoFor(fusion, args, schedulerDevice(device.properties)));
    out.poison();
    exec.launch([...args.map((a) => a.asKernelArgument()), out.asKernelArgument()]);
    device.synchronize();
    const got = out.toHost().toFloat64Array();
    const want = (evaluate(fusion, inputs.map((i) => i.host))[0] as HostTensor).toFloat64Array();
    let bad = 0;
    let first = '';
    for (let i = 0; i < want.length; i += 1) {
      // Another reduction order than the evaluator's: two bf16 ulps.
      if (!(Math.abs((got[i] as number) - (want[i] as number)) <= 2 ** -6 * Math.max(1, Math.abs(want[i] as number)))) {
        if (bad === 0) first = `element ${i}: ${got[i]} vs ${want[i]}`;
        bad += 1;
      }
    }
    rows.push({ name: `${name} ${exec.kernel.params.schedulerType}`, ok: bad === 0, detail: bad === 0 ? 'ok' : `${bad} mismatches, first ${first}` });
  } finally {
    out.dispose();
    for (const i of inputs) i.owner.dispose();
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
      if (process.env['SUITE_PROGRESS'] === '1') process.stderr.write(`${c.name} [${r}, ${k}]\n`);
      const hosts = c.inputSizes.map((sz) => randomHost(c.inputDtype, sz, sz.map((_, d) => sz.slice(d + 1).reduce((a, b) => a * b, 1)), rng));
      const want = evaluate(c.fusion, hosts) as HostTensor[];
      for (const v of VARIANTS) {
        if (v.misalign && c.inputSizes.length === 0) continue;
        const name = `${c.name} [${r}, ${k}] ${v.name}`;
        try {
          const problem = runCase(device, c, v, hosts, want);
          rows.push({ name, ok: problem === null, detail: problem ?? 'ok' });
        } catch (error) {
          rows.push({ name, ok: false, detail: `${(error as Error).name}: ${(error as Error).message.split('\n')[0] ?? ''}` });
        }
      }
    }
  }
  for (const sizes of [[37, 999], [1024, 4096]] as [number, number][]) {
    try {
      checkLayerNorm(device, rows, sizes);
    } catch (error) {
      rows.push({ name: `dropout_residual_layer_norm [${sizes.join(', ')}]`, ok: false, detail: (error as Error).message.split('\n')[0] ?? '' });
    }
  }
  const timed: [string, Fusion, number][] = [
    ['dropout', (rngCases(16384, 4096).find((x) => x.name === 'dropout_BFloat16') as RngCase).fusion, 1],
    ['dropout + residual + layer_norm', dropoutResidualLayerNorm(), 2],
  ];
  for (const [name, fusion, inputCount] of timed) {
    try {
      timeFusion(device, rows, name, fusion, inputCount);
    } catch (error) {
      rows.push({ name: `timing: ${name}`, ok: false, detail: (error as Error).message.split('\n')[0] ?? '' });
    }
  }
  const failed = rows.filter((x) => !x.ok);
  for (const x of failed) console.log(`FAIL ${x.name}: ${x.detail}`);
  console.log('| case | result |\n|---|---|');
  for (const x of rows.filter((y) => y.name.startsWith('timing') || y.name.startsWith('dropout_residual') || y.name.includes('[1024, 1000] heuristic'))) console.log(`| ${x.name} | ${x.detail} |`);
  console.log(`${rows.length - failed.length} passed, ${failed.length} failed`);
  process.exitCode = failed.length === 0 ? 0 : 1;
}

main();
