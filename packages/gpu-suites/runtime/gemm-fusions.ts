// GPU suite of GEMM segments through FusionExecutorCache (entry runtime-gemm-fusions):
//
//   bash gpu-bundle/run.sh runtime-gemm-fusions [--seed S] [--no-timing] [--only TEXT]
//
// matmul in every rank combination of torch.matmul (1-D·1-D … 4-D·3-D with broadcast batch
// dims) and linear (1-D, 2-D and 3-D inputs, with and without bias), in Float / BFloat16 / Half,
// at odd sizes (1, 7, 129, 4095), with transposed and padded (strided) operands, each epilogue
// cuBLASLt fuses (bias, relu, gelu(tanh), bias + relu, bias + gelu, the pre-activation as a
// second output, casts) and with prologues (relu, layer_norm) and epilogues cuBLASLt does not
// fuse (a scale, gelu's erf form) in generated kernels around the GEMM; scaled_mm (fp8 with
// per-tensor scales) and grouped_mm (batched, and by offsets cutting M, N or K) —
// gemm-scaled-grouped-cases.ts; the MLP backward's DGELU / DGELU_BGRAD dgrad GEMM and the whole
// GPT-MLP backward — gemm-backward-cases.ts — each fusion one
// FusionExecutorCache call, outputs poisoned first, every element against the float64 reference
// evaluator with a tolerance by dtype and K. Then timings (CUDA events, L2 flushed before each
// run) as TFLOP/s: bf16 GEMMs 8192×4096×4096, 8192×16384×4096, 8192×4096×16384, 4096×11008×4096,
// linear + bias + gelu(tanh) and the GPT MLP block forward. Ends "N passed, M failed".

import { evaluate, Fusion, gelu, HostTensor, linear, type DataType } from '@tsfuser/fusion-ir';
import { DeviceContext, gemmAvailability, l2Flusher, Tensor, timeDevice } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { defaultSchedulerRegistry, MatmulScheduler } from '@tsfuser/scheduler';
import { seededRandom } from '@tsfuser/test-support';
import { gemmEntryRefusal } from '../device/gemm-host.js';
import { dense, input, linearCases, matmulCases, type Case, type GemmDtype } from './gemm-fusion-cases.js';
import { groupedMmCases, scaledMmCases } from './gemm-scaled-grouped-cases.js';
import { backwardCases } from './gemm-backward-cases.js';

const args = process.argv.slice(2);
const seedArg = args.indexOf('--seed');
const seed = seedArg >= 0 ? Number(args[seedArg + 1]) : Math.floor(Math.random() * 2 ** 31);
const timing = !args.includes('--no-timing');
const onlyArg = args.indexOf('--only');
const only = onlyArg >= 0 ? (args[onlyArg + 1] ?? '') : '';

/** Inputs: storage with random values exact in `dtype`, the reference's strided view and the device tensor. */
function makeInputs(device: DeviceContext, c: Case, rand: () => number): { host: HostTensor[]; device: Tensor[]; owners: Tensor[] } {
  const host: HostTensor[] = [];
  const dev: Tensor[] = [];
  const owners: Tensor[] = [];
  for (const spec of c.inputs) {
    const strides = spec.strides ?? dense(spec.sizes);
    const span = spec.sizes.reduce((acc, s, i) => acc + (s - 1) * (strides[i] as number), 0) + 1;
    const dtype = spec.dtype ?? c.dtype;
    const storage = HostTensor.fromValues(dtype, [span], spec.values ?? Array.from({ length: span }, () => Math.round((rand() * 2 - 1) * 64) / 64));
    host.push(new HostTensor(dtype, spec.sizes, strides, storage.data));
    const owner = Tensor.fromHost(storage).toDevice(device);
    owners.push(owner);
    dev.push(owner.asStrided(spec.sizes, strides));
  }
  return { host, device: dev, owners };
}

function unitRoundoff(dtype: DataType): number {
  switch (dtype) {
    case 'Float8_e5m2':
      return 2 ** -3;
    case 'Float8_e4m3fn':
      return 2 ** -4;
    case 'BFloat16':
      return 2 ** -8;
    case 'Half':
      return 2 ** -11;
    default:
      return 2 ** -24;
  }
}

function runCase(device: DeviceContext, c: Case, rand: () => number): string | null {
  const inputs = makeInputs(device, c, rand);
  const registry = c.backwardEpilogues === true ? defaultSchedulerRegistry().replacing(new MatmulScheduler({ backwardEpilogues: true })) : undefined;
  const cache = new FusionExecutorCache(c.fusion, device, { poisonOutputs: true, ...(registry === undefined ? {} : { registry }) });
  let outs: Tensor[] = [];
  try {
    const want = evaluate(c.fusion, inputs.host) as HostTensor[];
    outs = cache.runFusion(inputs.device);
    device.synchronize();
    for (let o = 0; o < want.length; o += 1) {
      const w = (want[o] as HostTensor).toNumbers();
      const g = (outs[o] as Tensor).toHost().toNumbers();
      const u = Math.max(unitRoundoff(c.dtype), unitRoundoff((want[o] as HostTensor).dtype));
      // inputs are in [-1, 1]: a dot product's magnitude grows like √K; f32 accumulation adds √K·2⁻²³ of it
      const scale = Math.sqrt(c.k);
      const slack = typeof c.slack === 'number' ? c.slack : (c.slack?.[o] ?? 0);
      for (let i = 0; i < w.length; i += 1) {
        const x = w[i] as number;
        const y = g[i] as number;
        const tol = (4 * u + slack) * (Math.abs(x) + 1) + (2 * u + 8 * 2 ** -23) * scale;
        if (!(Math.abs(x - y) <= tol)) return `output ${o} element ${i}: got ${y}, want ${x} (tolerance ${tol.toExponential(2)})`;
      }
    }
    return null;
  } catch (error) {
    const e = error as Error;
    return `${e.name}: ${e.message.split('\n').slice(0, 3).join(' | ')}`;
  } finally {
    for (const t of outs) t.dispose();
    for (const t of inputs.owners) t.dispose();
  }
}

/** A tiled random device tensor (a 2^20-element block repeated): no host fill of 10⁸ elements. */
function tiled(device: DeviceContext, dtype: GemmDtype, sizes: number[], rand: () => number): Tensor {
  const numel = sizes.reduce((a, b) => a * b, 1);
  const block = Math.min(numel, 1 << 20);
  const staged = Tensor.fromHost(HostTensor.fromValues(dtype, [block], Array.from({ length: block }, () => (rand() * 2 - 1) * 0.5))).toDevice(device);
  const t = Tensor.emptyDevice(device, dtype, sizes);
  const bytesPer = dtype === 'Float' ? 4 : 2;
  for (let at = 0; at < numel; at += block) device.copyDeviceToDevice(t.dataPtr + BigInt(at * bytesPer), staged.dataPtr, Math.min(block, numel - at) * bytesPer);
  staged.dispose();
  return t;
}

interface Timed {
  name: string;
  ms: number;
  tflops: number;
  segments: string;
}

function timeWorkloads(device: DeviceContext, rand: () => number): Timed[] {
  const flusher = l2Flusher(device);
  const rows: Timed[] = [];
  const bf16 = 'BFloat16';
  const time = (name: string, fusion: Fusion, sizes: number[][], flops: number): void => {
    const ins = sizes.map((s) => tiled(device, bf16, s, rand));
    const cache = new FusionExecutorCache(fusion, device);
    try {
      const ms = timeDevice(device, flusher, () => cache.runFusion(ins).forEach((t) => t.dispose()), 20);
      const segments = cache.lastPlan()?.segments.map((s) => s.kind).join('+') ?? '?';
      rows.push({ name, ms, tflops: flops / (ms * 1e-3) / 1e12, segments });
    } catch (error) {
      rows.push({ name: `${name} (${(error as Error).message.slice(0, 80)})`, ms: NaN, tflops: NaN, segments: 'failed' });
    } finally {
      for (const t of ins) t.dispose();
      device.releasePool();
    }
  };
  for (const [m, n, k] of [[8192, 4096, 4096], [8192, 16384, 4096], [8192, 4096, 16384], [4096, 11008, 4096]] as const) {
    const f = new Fusion();
    const x = input(f, { sizes: [m, k] }, bf16, false);
    const w = input(f, { sizes: [n, k] }, bf16, false);
    f.addOutput(linear(x, w));
    time(`gemm bf16 ${m}x${n}x${k}`, f, [[m, k], [n, k]], 2 * m * n * k);
  }
  {
    const [m, n, k] = [8192, 16384, 4096];
    const f = new Fusion();
    const x = input(f, { sizes: [m, k] }, bf16, false);
    const w = input(f, { sizes: [n, k] }, bf16, false);
    const b = input(f, { sizes: [n] }, bf16, false);
    f.addOutput(gelu(linear(x, w, b), 'tanh'));
    time(`linear+bias+gelu(tanh) bf16 ${m}x${n}x${k}`, f, [[m, k], [n, k], [n]], 2 * m * n * k);
  }
  {
    const [t, h, ffn] = [8192, 4096, 16384];
    const f = new Fusion();
    const x = input(f, { sizes: [t, h] }, bf16, false);
    const w1 = input(f, { sizes: [ffn, h] }, bf16, false);
    const b1 = input(f, { sizes: [ffn] }, bf16, false);
    const w2 = input(f, { sizes: [h, ffn] }, bf16, false);
    const b2 = input(f, { sizes: [h] }, bf16, false);
    f.addOutput(linear(gelu(linear(x, w1, b1), 'tanh'), w2, b2));
    time(`GPT MLP fwd bf16 tokens ${t} hidden ${h} ffn ${ffn}`, f, [[t, h], [ffn, h], [ffn], [h, ffn], [h]], 4 * t * h * ffn);
  }
  flusher.dispose();
  return rows;
}

function main(): number {
  const refusal = gemmEntryRefusal();
  if (refusal !== null) {
    console.log(`runtime-gemm-fusions: cannot run: ${refusal}`);
    return 1;
  }
  const gemm = gemmAvailability();
  console.log(`runtime-gemm-fusions: seed ${seed}; cuBLASLt ${gemm.version ?? '?'} from ${gemm.path ?? '?'}`);
  const device = DeviceContext.create(0);
  const rand = seededRandom(seed);
  const cases = [...(['Float', 'BFloat16', 'Half'] as const).flatMap((d) => [...matmulCases(d), ...linearCases(d)]), ...scaledMmCases(), ...groupedMmCases(), ...backwardCases()].filter((c) => only === '' || c.name.includes(only));
  const failures: string[] = [];
  for (const c of cases) {
    const problem = runCase(device, c, rand);
    if (problem !== null) {
      failures.push(`${c.name}: ${problem}`);
      console.log(`FAIL ${c.name}: ${problem}`);
    }
  }
  device.releasePool();
  const rows = timing ? timeWorkloads(device, rand) : [];
  if (rows.length > 0) {
    console.log('\n| workload | segments | median ms | TFLOP/s |\n|---|---|---:|---:|');
    for (const r of rows) console.log(`| ${r.name} | ${r.segments} | ${r.ms.toFixed(3)} | ${r.tflops.toFixed(0)} |`);
  }
  console.log(`\nruntime-gemm-fusions: ${cases.length - failures.length} passed, ${failures.length} failed (seed ${seed})`);
  device.dispose();
  return failures.length > 0 ? 1 : 0;
}

process.exitCode = main();
