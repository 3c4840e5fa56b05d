// The cases of the runtime-gemm-fusions GPU entry (gemm-fusions.ts), device-free so a CPU dry
// run can plan them: matmul in every rank combination of torch.matmul (broadcast batch dims
// included) at odd sizes, transposed and padded operands, and linear with leading dims, each
// cuBLASLt epilogue, epilogues it does not fuse and prologues. Each case: a fusion, its input
// layouts, its dtype and K (the tolerance grows with K).

import { add, broadcast, cast, Fusion, gelu, layerNorm, linear, makeTensor, matmul, mul, relu, type DataType, type TensorView } from '@tsfuser/fusion-ir';

export type GemmDtype = Extract<DataType, 'Float' | 'BFloat16' | 'Half'>;

/** One input: its sizes and, for a strided / transposed operand, its strides; its dtype when not the case's, its values when not random (scales, offsets). */
export interface InputSpec {
  sizes: number[];
  strides?: number[];
  dtype?: DataType;
  values?: number[];
}

export interface Case {
  name: string;
  /** The inputs' dtype (where an input states none) and the output's, for the tolerance. */
  dtype: DataType;
  /** The GEMM's K (the tolerance grows with it). */
  k: number;
  fusion: Fusion;
  inputs: InputSpec[];
  /** Extra tolerance, relative to |reference| + 1 (where the accumulation or an epilogue is not f32-exact); per output when a list. */
  slack?: number | readonly number[];
  /** Run with MatmulScheduler({ backwardEpilogues: true }) (cuBLASLt's DGELU / BGRAD epilogues; off by default). */
  backwardEpilogues?: boolean;
}

export function dense(sizes: readonly number[]): number[] {
  const s = new Array<number>(sizes.length).fill(1);
  for (let i = sizes.length - 2; i >= 0; i -= 1) s[i] = (s[i + 1] as number) * Math.max(1, sizes[i + 1] as number);
  return s;
}

/** A fusion input; strided inputs are declared non-contiguous, size-1 batch dims as broadcasts. */
export function input(f: Fusion, spec: InputSpec, dtype: DataType, broadcastOnes: boolean): TensorView {
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

export function matmulCases(dtype: GemmDtype): Case[] {
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

type Epilogue = 'none' | 'bias' | 'relu' | 'gelu' | 'bias_relu' | 'bias_gelu' | 'bias_gelu_aux' | 'cast_f32' | 'scale' | 'gelu_erf' | 'residual' | 'bias_residual_relu';

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
  // a residual [lead…, n] added to the GEMM's result: cuBLASLt's C with beta 1
  const r = epilogue.includes('residual') ? input(f, { sizes: [...lead, n] }, dtype, false) : null;
  const biased = b === null ? y : add(y, broadcast(b, [...lead.map(() => true), false]));
  const pre = r === null ? biased : add(biased, r);
  switch (epilogue) {
    case 'none':
    case 'bias':
    case 'residual':
      f.addOutput(pre);
      break;
    case 'relu':
    case 'bias_relu':
    case 'bias_residual_relu':
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
  const inputs = [xs, weight, ...(b === null ? [] : [{ sizes: [n] }]), ...(r === null ? [] : [{ sizes: [...lead, n] }])];
  const wText = weight.strides === undefined ? '' : ' W transposed';
  return { name: `linear ${dtype} [${[...lead, k].join('x')}]·[${n}x${k}]ᵀ ${epilogue}${prologue === 'none' ? '' : ` after ${prologue}`}${wText}`, dtype, k, fusion: f, inputs };
}

export function linearCases(dtype: GemmDtype): Case[] {
  const out: Case[] = [];
  const epilogues: Epilogue[] = ['none', 'bias', 'relu', 'gelu', 'bias_relu', 'bias_gelu', 'bias_gelu_aux', 'cast_f32', 'scale', 'gelu_erf', 'residual', 'bias_residual_relu'];
  for (const e of epilogues) out.push(linearCase(dtype, [129], 136, 129, e, 'none', { sizes: [136, 129] }));
  for (const lead of [[1], [7], [3, 43], [2, 3, 7]]) out.push(linearCase(dtype, lead, 8, 129, 'bias_gelu', 'none', { sizes: [8, 129] }));
  out.push(linearCase(dtype, [7], 136, 4095, 'bias', 'none', { sizes: [136, 4095] }));
  out.push(linearCase(dtype, [2, 3, 7], 64, 129, 'residual', 'none', { sizes: [64, 129] }));
  out.push(linearCase(dtype, [129], 64, 129, 'bias_gelu', 'relu', { sizes: [64, 129] }));
  out.push(linearCase(dtype, [129], 64, 256, 'bias_gelu', 'layer_norm', { sizes: [64, 256] }));
  // W stored K-major (a transposed weight): read in place
  out.push(linearCase(dtype, [129], 64, 129, 'bias_relu', 'none', { sizes: [64, 129], strides: [1, 64] }));
  return out;
}

