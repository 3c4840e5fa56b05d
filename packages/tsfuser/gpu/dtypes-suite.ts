// GPU check of the fp8 and UInt64 data types (not a vitest suite: it needs a GPU).
//
//   pnpm gpu:bundle tsfuser-dtypes-suite && (on the GPU host) bash gpu-bundle/run.sh tsfuser-dtypes-suite
//
// Every fp8 fixture of @tsfuser/test-support (casts Float → e4m3 / e5m2 / e8m0 and back with
// ties, subnormals, overflow, ±0, ±inf and NaN; e4m3 × e5m2 inputs computed in float; an e4m3 row
// sum; the e8m0 block scale; the per-row amax → e4m3 scaling recipe of bf16) at three sizes,
// pointwise cases also under three forced schedules and with misaligned inputs, launched into
// poisoned outputs and compared with the reference evaluator bit for bit (fp8 and bf16 bytes;
// Float by value, any NaN matching NaN). Every UInt64 fixture (wrapping a·b + c, a − b, −a,
// a − 1, b³, bitwise ops and shifts, comparisons, sign, casts, row sum / max / min) with all
// 64 bits random, bit for bit. The seed is printed. Then timings (kernel alone, L2
// flushed) of Float → e4m3 and of the per-row scaling recipe bf16 [16384, 4096] → e4m3 against
// the copy bandwidth. Prints a table and `N passed, M failed`; exits 1 on any failure.

import { cast, evaluate, Fusion, HostTensor, makeTensor, type DataType } from '@tsfuser/fusion-ir';
import { FusionExecutor, runtimeInfoFor, schedulerDevice } from '@tsfuser/runtime';
import { DeviceContext, isAvailable, l2Flusher, Tensor, timeDevice } from '@tsfuser/device';
import { PointwiseScheduler, SchedulerRegistry, type PointwiseOverrides } from '@tsfuser/scheduler';
import { fp8Cases, fp8CastValues, fp8DirectReductionCases, uint64Cases, uint64Input, type Fp8Case } from '@tsfuser/test-support';
import { toDeviceInput, type DeviceInput } from '../src/bench/device-inputs.js';
import { copyBandwidth } from '../src/bench/timing.js';

interface Variant {
  name: string;
  overrides: PointwiseOverrides | null;
  misalign: boolean;
}

const DEFAULT: Variant = { name: 'default registry', overrides: null, misalign: false };
const POINTWISE_VARIANTS: Variant[] = [
  DEFAULT,
  { name: '1D bdimx=128 unroll=1', overrides: { breakPoint: 0, bdimx: 128, unroll: 1 }, misalign: false },
  { name: '2D bdimx=32 unroll=4', overrides: { breakPoint: 1, bdimx: 32, unroll: 4 }, misalign: false },
  { name: 'default, misaligned inputs', overrides: null, misalign: true },
];

const SIZES: [number, number][] = [[37, 131], [256, 1024], [1024, 4096]];

interface Row {
  name: string;
  ok: boolean;
  detail: string;
}

/**
 * Whether a stored element is a NaN of `dtype` (Float/Double by value; Half and BFloat16 by their
 * bit patterns). Any NaN equals any NaN: PyTorch's float → bfloat16 writes NaN as 0x7fc0, CUDA's
 * cvt.rn.bf16.f32 (the kernels', as nvFuser's) as 0x7fff — the same value, another payload.
 */
function isNanBits(dtype: string, v: number): boolean {
  if (dtype === 'Float' || dtype === 'Double') return Number.isNaN(v);
  if (dtype === 'BFloat16') return (v & 0x7f80) === 0x7f80 && (v & 0x7f) !== 0;
  if (dtype === 'Half') return (v & 0x7c00) === 0x7c00 && (v & 0x3ff) !== 0;
  return false;
}

/** First difference of the stored bits (NaN equals NaN in Float, Double, Half and BFloat16; UInt64 as bigints), or null. */
function compare(got: HostTensor, want: HostTensor): string | null {
  const g = got.contiguous().data;
  const w = want.contiguous().data;
  if (g.length !== w.length) return `${g.length} elements, reference ${w.length}`;
  let bad = 0;
  let first = '';
  for (let i = 0; i < w.length; i += 1) {
    const a = g[i] as number | bigint;
    const b = w[i] as number | bigint;
    const same = Object.is(a, b) || (typeof a === 'number' && typeof b === 'number' && isNanBits(want.dtype, a) && isNanBits(want.dtype, b));
    if (!same) {
      if (bad === 0) first = `element ${i}: ${a.toString(16)} vs ${b.toString(16)}`;
      bad += 1;
    }
  }
  return bad === 0 ? null : `${bad} mismatches (${want.dtype}, bit-exact), first ${first}`;
}

function runCase(device: DeviceContext, c: { fusion: Fusion }, v: Variant, hosts: readonly HostTensor[], want: readonly HostTensor[]): string {
  const inputs: DeviceInput[] = hosts.map((h) => toDeviceInput(device, h, v.misalign));
  const outputs: Tensor[] = [];
  try {
    const args = inputs.map((i) => i.tensor);
    const info = runtimeInfoFor(c.fusion, args, schedulerDevice(device.properties));
    const exec = FusionExecutor.compile(device, c.fusion, info, v.overrides === null ? {} : { registry: new SchedulerRegistry([new PointwiseScheduler(v.overrides)]) });
    for (const w of want) {
      const t = Tensor.emptyDevice(device, w.dtype, w.sizes);
      t.poison();
      outputs.push(t);
    }
    exec.launch([...args.map((a) => a.asKernelArgument()), ...outputs.map((o) => o.asKernelArgument())]);
    device.synchronize();
    const problems = outputs.map((o, k) => compare(o.toHost(), want[k] as HostTensor)).filter((p) => p !== null);
    if (problems.length > 0) throw new Error(problems.join('; '));
    return `${exec.kernel.params.schedulerType}, ok`;
  } finally {
    for (const o of outputs) o.dispose();
    for (const i of inputs) i.owner.dispose();
  }
}

/** Times `fusion` over [16384, 4096] inputs (default registry) against the copy bandwidth; `bytes` moved per element. */
function timeFusion(device: DeviceContext, rows: Row[], name: string, c: Fp8Case, bytesPerElement: number): void {
  const sizes: [number, number] = [16384, 4096];
  const hosts = c.inputs(7, sizes[0], sizes[1]);
  const inputs = hosts.map((h) => toDeviceInput(device, h, false));
  const outs = c.fusion.outputs.map((o, i) => Tensor.emptyDevice(device, (o as { dtype: DataType }).dtype, i === 0 ? sizes : [sizes[0]]));
  const flusher = l2Flusher(device);
  try {
    const args = inputs.map((i) => i.tensor);
    const exec = FusionExecutor.compile(device, c.fusion, runtimeInfoFor(c.fusion, args, schedulerDevice(device.properties)));
    const values = [...args.map((a) => a.asKernelArgument()), ...outs.map((o) => o.asKernelArgument())];
    const ms = timeDevice(device, flusher, () => exec.launch(values), 30);
    const bytes = bytesPerElement * sizes[0] * sizes[1];
    const copyGbs = copyBandwidth(device, flusher, 10);
    const gbs = bytes / (ms * 1e-3) / 1e9;
    rows.push({
      name: `timing: ${name} [16384, 4096]`,
      ok: true,
      detail: `${exec.kernel.params.schedulerType}, ${(ms * 1000).toFixed(1)} µs, ${gbs.toFixed(0)} GB/s (${((100 * gbs) / copyGbs).toFixed(0)}% of copy ${copyGbs.toFixed(0)} GB/s)`,
    });
  } finally {
    flusher.dispose();
    for (const o of outs) o.dispose();
    for (const i of inputs) i.owner.dispose();
  }
}

/** A Float → e4m3 cast alone (the quantize step). */
function castOnly(): Fp8Case {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
  f.addInput(x);
  f.addOutput(cast(x, 'Float8_e4m3fn'));
  return { name: 'fp8_cast_only', fusion: f, scheduler: 'pointwise', inputs: (seed, r, c) => [HostTensor.fromValues('Float', [r, c], fp8CastValues(seed, r * c))] };
}

function main(): void {
  const availability = isAvailable();
  if (!availability.available) {
    console.log(`no GPU: ${availability.reason ?? 'unknown reason'}`);
    process.exitCode = 1;
    return;
  }
  const device = DeviceContext.create(0);
  const seed = Number(process.env['SEED'] ?? 20261124);
  console.log(`fp8 suite seed ${seed}`);
  const rows: Row[] = [];
  for (const [r, k] of SIZES) {
    for (const c of [...fp8Cases(), ...fp8DirectReductionCases()]) {
      const hosts = c.inputs(seed + r, r, k);
      const want = evaluate(c.fusion, hosts) as HostTensor[];
      for (const v of c.scheduler === 'pointwise' ? POINTWISE_VARIANTS : [DEFAULT]) {
        const name = `${c.name} [${r}, ${k}] ${v.name}`;
        try {
          rows.push({ name, ok: true, detail: runCase(device, c, v, hosts, want) });
        } catch (error) {
          rows.push({ name, ok: false, detail: `${(error as Error).name}: ${(error as Error).message.split('\n')[0] ?? ''}` });
        }
      }
    }
  }
  for (const [r, k] of SIZES) {
    for (const c of uint64Cases()) {
      const hosts = Array.from({ length: c.inputCount }, (_, i) => uint64Input(seed + r + i, r, k, true));
      const want = evaluate(c.fusion, hosts) as HostTensor[];
      for (const v of c.scheduler === 'pointwise' ? POINTWISE_VARIANTS : [DEFAULT]) {
        const name = `${c.name} [${r}, ${k}] ${v.name}`;
        try {
          rows.push({ name, ok: true, detail: runCase(device, c, v, hosts, want) });
        } catch (error) {
          rows.push({ name, ok: false, detail: `${(error as Error).name}: ${(error as Error).message.split('\n')[0] ?? ''}` });
        }
      }
    }
  }
  const recipe = fp8Cases().find((k) => k.name === 'fp8_row_scaled_e4m3') as Fp8Case;
  for (const [name, c, bytes] of [['cast Float → e4m3', castOnly(), 5], ['per-row scaling bf16 → e4m3', recipe, 3]] as [string, Fp8Case, number][]) {
    try {
      timeFusion(device, rows, name, c, bytes);
    } catch (error) {
      rows.push({ name: `timing: ${name}`, ok: false, detail: (error as Error).message.split('\n')[0] ?? '' });
    }
  }
  const failed = rows.filter((x) => !x.ok);
  for (const x of failed) console.log(`FAIL ${x.name}: ${x.detail}`);
  console.log('| case | result |\n|---|---|');
  for (const x of rows.filter((y) => y.name.startsWith('timing') || y.name.includes('[1024, 4096] default registry'))) console.log(`| ${x.name} | ${x.detail} |`);
  console.log(`${rows.length - failed.length} passed, ${failed.length} failed`);
  process.exitCode = failed.length === 0 ? 0 : 1;
}

main();
