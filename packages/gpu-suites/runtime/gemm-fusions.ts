// GPU suite of GEMM segments through FusionExecutorCache (entry runtime-gemm-fusions):
//
//   bash gpu-bundle/run.sh runtime-gemm-fusions [--seed S] [--no-timing] [--only TEXT]
//
// matmul in every rank combination of torch.matmul (1-D·1-D … 4-D·3-D with broadcast batch
// dims) and linear (1-D, 2-D and 3-D inputs, with and without bias), in Float / BFloat16 / Half,
// at odd sizes (1, 7, 129, 4095), with transposed and padded (strided) operands, each epilogue
// cuBLASLt fuses (bias, relu, gelu(tanh), bias + relu, bias + gelu, the pre-activation as a
// second output, casts) and with prologues (relu, layer_norm) and epilogues cuBLASLt does not
// fuse (a scale, gelu's erf form) in generated kernels around the GEMM — each fusion one
// FusionExecutorCache call, outputs poisoned first, every element against the float64 reference
// evaluator with a tolerance by dtype and K. Then timings (CUDA events, L2 flushed before each
// run) as TFLOP/s: bf16 GEMMs 8192×4096×4096, 8192×16384×4096, 8192×4096×16384, 4096×11008×4096,
// linear + bias + gelu(tanh) and the GPT MLP block forward. Ends "N passed, M failed".

import { add, broadcast, cast, evaluate, Fusion, gelu, HostTensor, layerNorm, linear, makeTensor, matmul, mul, relu, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { DeviceContext, gemmAvailability, isAvailable, l2Flusher, Tensor, timeDevice } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { seededRandom } from '@tsfuser/test-support';
import { locateCublasLt } from '../device/gemm-host.js';

const args = process.argv.slice(2);
const seedArg = args.indexOf('--seed');
const seed = seedArg >= 0 ? Number(args[seedArg + 1]) : Math.floor(Math.random() * 2 ** 31);
const timing = !args.includes('--no-timing');
const onlyArg = args.indexOf('--only');
const only = onlyArg >= 0 ? (args[onlyArg + 1] ?? '') : '';

type GemmDtype = Extract<DataType, 'Float' | 'BFloat16' | 'Half'>;

/** One input: its sizes and, for a strided / transposed operand, its strides. */
interface InputSpec {
  sizes: number[];
  strides?: number[];
}

interface Case {
  name: string;
  dtype: GemmDtype;
  /** The GEMM's K (the tolerance grows with it). */
  k: number;
  fusion: Fusion;
  inputs: InputSpec[];
}

function dense(sizes: readonly number[]): number[] {
  const s = new Array<number>(sizes.length).fill(1);
  for (let i = sizes.length - 2; i >= 0; i -= 1) s[i] = (s[i + 1] as number) * Math.max(1, sizes[i + 1] as number);
  return s;
}

/** A fusion input; strided inputs are declared non-contiguous, size-1 batch dims as broadcasts. */
function input(f: Fusion, spec: InputSpec, dtype: DataType, broadcastOnes: boolean): TensorView {
  const shape = spec.sizes.map((s) => (broadcastOnes && s === 1 ? 1 : -1));
  const contiguity = shape.map((s) => (s === 1 ? null : spec.strides === undefined));
  const tv = makeTensor(f, { shape, dtype, contiguity });
  f.addInput(tv);
  return tv;
}

/** A [rows, cols] operand stored transposed (column-major): strides [1, rows]. */
function transposed(rows: number, cols: number): InputSpec {
  return { sizes: [rows, cols], strides: [1, rows] };
}

/** A [rows, cols] operand with padded rows: strides [cols + 3, 1]. */
function padded(rows: number, cols: number): InputSpec {
  return { sizes: [rows, cols], strides: [cols + 3, 1] };
}

const SIZES: [number, number, number][] = [[1, 1, 1], [7, 7, 7], [129, 7, 129], [7, 129, 4095], [4095, 7, 7], [129, 129, 129]];

/** torch.matmul operand shapes for ranks (ra, rb) at m, n, k with batch 3 (and 2 × 3 for 4-D). */
function matmulShapes(ra: number, rb: number, m: number, n: number, k: number): [number[], number[]] {
  const a = ra === 1 ? [k] : ra === 2 ? [m, k] : ra === 3 ? [3, m, k] : [2, 3, m, k];
  // a 3-D B beside a 4-D A broadcasts over A's first batch dim
  const b = rb === 1 ? [k] : rb === 2 ? [k, n] : rb === 3 ? [3, k, n] : [2, 1, k, n];
  return [a, b];
}

function matmulCases(dtype: GemmDtype): Case[] {
  const out: Case[] = [];
  const ranks: [number, number][] = [[1, 1], [1, 2], [2, 1], [2, 2], [3, 2], [2, 3], [3, 3], [1, 3], [3, 1], [4, 3], [4, 4]];
  for (const [ra, rb] of ranks) {
    for (const [m, n, k] of SIZES) {
      const [as, bs] = matmulShapes(ra, rb, m, n, k);
      const f = new Fusion();
      const a = input(f, { sizes: as }, dtype, true);
      const b = input(f, { sizes: bs }, dtype, true);
      f.addOutput(matmul(a, b));
      out.push({ name: `matmul ${dtype} ${ra}D·${rb}D m${m} n${n} k${k}`, dtype, k, fusion: f, inputs: [{ sizes: as }, { sizes: bs }] });
    }
  }
  // transposed and padded operands, read in place
  const strided: [number, number, number][] = [[129, 7, 129], [7, 129, 4095]];
  for (const [m, n, k] of strided) {
    const layouts: [InputSpec, InputSpec, string][] = [
      [transposed(m, k), { sizes: [k, n] }, 'A transposed'],
      [{ sizes: [m, k] }, transposed(k, n), 'B transposed'],
      [padded(m, k), padded(k, n), 'both padded'],
    ];
    for (const [la, lb, what] of layouts) {
      const f = new Fusion();
      const a = input(f, la, dtype, false);
      const b = input(f, lb, dtype, false);
      f.addOutput(matmul(a, b));
      out.push({ name: `matmul ${dtype} ${what} m${m} n${n} k${k}`, dtype, k, fusion: f, inputs: [la, lb] });
    }
  }
  return out;
}

type Epilogue = 'none' | 'bias' | 'relu' | 'gelu' | 'bias_relu' | 'bias_gelu' | 'bias_gelu_aux' | 'cast_f32' | 'scale' | 'gelu_erf';

function linearCase(dtype: GemmDtype, lead: number[], n: number, k: number, epilogue: Epilogue, prologue: 'none' | 'relu' | 'layer_norm', weight: InputSpec): Case {
  const f = new Fusion();
  const xs = { sizes: [...lead, k] };
  let x = input(f, xs, dtype, false);
  const w = input(f, weight, dtype, false);
  const withBias = epilogue.startsWith('bias');
  const b = withBias ? input(f, { sizes: [n] }, dtype, false) : null;
  if (prologue === 'relu') x = relu(x);
  if (prologue === 'layer_norm') x = cast(layerNorm(x, 1).output, dtype);
  const y = linear(x, w);
  const pre = b === null ? y : add(y, broadcast(b, [...lead.map(() => true), false]));
  switch (epilogue) {
    case 'none':
    case 'bias':
      f.addOutput(pre);
      break;
    case 'relu':
    case 'bias_relu':
      f.addOutput(relu(pre));
      break;
    case 'gelu':
    case 'bias_gelu':
      f.addOutput(gelu(pre, 'tanh'));
      break;
    case 'bias_gelu_aux':
      f.addOutput(gelu(pre, 'tanh'));
      f.addOutput(pre);
      break;
    case 'cast_f32':
      f.addOutput(cast(pre, 'Float'));
      break;
    case 'scale':
      f.addOutput(mul(pre, 0.5));
      break;
    case 'gelu_erf':
      f.addOutput(gelu(pre));
      break;
  }
  const inputs = b === null ? [xs, weight] : [xs, weight, { sizes: [n] }];
  const wText = weight.strides === undefined ? '' : ' W transposed';
  return { name: `linear ${dtype} [${[...lead, k].join('x')}]·[${n}x${k}]ᵀ ${epilogue}${prologue === 'none' ? '' : ` after ${prologue}`}${wText}`, dtype, k, fusion: f, inputs };
}

function linearCases(dtype: GemmDtype): Case[] {
  const out: Case[] = [];
  const epilogues: Epilogue[] = ['none', 'bias', 'relu', 'gelu', 'bias_relu', 'bias_gelu', 'bias_gelu_aux', 'cast_f32', 'scale', 'gelu_erf'];
  for (const e of epilogues) out.push(linearCase(dtype, [129], 136, 129, e, 'none', { sizes: [136, 129] }));
  for (const lead of [[1], [7], [3, 43], [2, 3, 7]]) out.push(linearCase(dtype, lead, 8, 129, 'bias_gelu', 'none', { sizes: [8, 129] }));
  out.push(linearCase(dtype, [7], 136, 4095, 'bias', 'none', { sizes: [136, 4095] }));
  out.push(linearCase(dtype, [129], 64, 129, 'bias_gelu', 'relu', { sizes: [64, 129] }));
  out.push(linearCase(dtype, [129], 64, 256, 'bias_gelu', 'layer_norm', { sizes: [64, 256] }));
  // W stored K-major (a transposed weight): read in place
  out.push(linearCase(dtype, [129], 64, 129, 'bias_relu', 'none', { sizes: [64, 129], strides: [1, 64] }));
  return out;
}

/** Inputs: storage with random values exact in `dtype`, the reference's strided view and the device tensor. */
function makeInputs(device: DeviceContext, c: Case, rand: () => number): { host: HostTensor[]; device: Tensor[]; owners: Tensor[] } {
  const host: HostTensor[] = [];
  const dev: Tensor[] = [];
  const owners: Tensor[] = [];
  for (const spec of c.inputs) {
    const strides = spec.strides ?? dense(spec.sizes);
    const span = spec.sizes.reduce((acc, s, i) => acc + (s - 1) * (strides[i] as number), 0) + 1;
    const storage = HostTensor.fromValues(c.dtype, [span], Array.from({ length: span }, () => Math.round((rand() * 2 - 1) * 64) / 64));
    host.push(new HostTensor(c.dtype, spec.sizes, strides, storage.data));
    const owner = Tensor.fromHost(storage).toDevice(device);
    owners.push(owner);
    dev.push(owner.asStrided(spec.sizes, strides));
  }
  return { host, device: dev, owners };
}

function unitRoundoff(dtype: DataType): number {
  return dtype === 'BFloat16' ? 2 ** -8 : dtype === 'Half' ? 2 ** -11 : 2 ** -24;
}

function runCase(device: DeviceContext, c: Case, rand: () => number): string | null {
  const inputs = makeInputs(device, c, rand);
  const cache = new FusionExecutorCache(c.fusion, device, { poisonOutputs: true });
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
      for (let i = 0; i < w.length; i += 1) {
        const x = w[i] as number;
        const y = g[i] as number;
        const tol = 4 * u * (Math.abs(x) + 1) + (2 * u + 8 * 2 ** -23) * scale;
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
  if (process.env.TSFUSER_CUBLASLT_PATH === undefined) {
    const found = locateCublasLt();
    if (found !== undefined) process.env.TSFUSER_CUBLASLT_PATH = found;
  }
  const runtime = isAvailable();
  const gemm = gemmAvailability();
  if (!runtime.available || !gemm.available) {
    console.log(`runtime-gemm-fusions: cannot run: ${runtime.available ? (gemm.reason ?? '?') : (runtime.reason ?? '?')}`);
    return 1;
  }
  console.log(`runtime-gemm-fusions: seed ${seed}; cuBLASLt ${gemm.version ?? '?'} from ${gemm.path ?? '?'}`);
  const device = DeviceContext.create(0);
  const rand = seededRandom(seed);
  const cases = (['Float', 'BFloat16', 'Half'] as const).flatMap((d) => [...matmulCases(d), ...linearCases(d)]).filter((c) => only === '' || c.name.includes(only));
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
