// The benchmark workloads of `tsfuser bench`, shared by name with tools/bench/pytorch_bench.py
// (same shapes, dtypes and math) so the table can put tsfuser, eager and torch.compile side by
// side. `bytes` is the minimal global traffic (each input read once, each output written once),
// the numerator of GB/s.

import type { DataType, HostTensor } from '@tsfuser/fusion-ir';
import { FusionDefinition } from '../definition/fusion-definition.js';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { importPythonDefinition } from '../python/import-definition.js';
import { resizeWorkloads } from './resize-workloads.js';
import { transposeWorkloads } from './transpose-workloads.js';
import { reshapeWorkloads } from './reshape-workloads.js';
import { gemmWorkloads } from './gemm-workloads.js';
import { llamaBlockWorkloads } from './llama-block-workloads.js';

export interface WorkloadInput {
  sizes: number[];
  dtype: DataType;
  /** Positive values (variances, divisors). */
  positive?: boolean;
  /** A scalar input with this value (sizes ignored). */
  scalar?: number;
  /** An index tensor: integers uniform in [0, indexBound). */
  indexBound?: number;
  /** Left as poisoned device memory (a lookup table whose values only move: no host fill of a GiB). */
  uninitialized?: boolean;
  /** Random values in a block of at most 2^20 elements, repeated (GEMM operands of 10^8 elements). */
  tiled?: boolean;
  /** Random values multiplied by this (weights scaled by ~1/√fan-in keep a deep block's activations O(1)). */
  scale?: number;
  /** Fixed values instead of random ones (RoPE's cos / sin tables); sizes and dtype must match. */
  values?: () => HostTensor;
}

/** An argument of a later step: a workload input, or an output of an earlier step (0 = `build`'s). */
export type StepArgument = { input: number } | { step: number; output: number };

/** A definition run after `build`'s in the same timed call (a training step's backward). */
export interface WorkloadStep {
  name: string;
  build: () => FusionDefinition;
  args: StepArgument[];
}

export interface Workload {
  name: string;
  description: string;
  build: () => FusionDefinition;
  inputs: WorkloadInput[];
  bytes: number;
  /** Floating-point operations (2·m·n·k per GEMM): the table adds TFLOP/s. */
  flops?: number;
  /**
   * Further definitions, run in order after `build`'s (which reads the first inputs) and timed
   * together with it; `bytes` then counts every step's inputs read and outputs written.
   */
  steps?: WorkloadStep[];
}

const f32 = 4;

function readmePointwise(): Workload {
  return {
    name: 'readme_pointwise',
    description: 'nvFuser README example, pointwise part: (t0[64,1,8192] + t1[64,512,8192]) * 3',
    build: () =>
      FusionDefinition.build((fd) => {
        const t0 = fd.defineTensor({ shape: [-1, 1, -1], contiguity: [true, null, true], dtype: 'Float' });
        const t1 = fd.defineTensor({ shape: [-1, -1, -1], contiguity: [true, true, true], dtype: 'Float' });
        fd.addOutput(fd.ops.mul(fd.ops.add(t0, t1), fd.defineConstant(3.0)));
      }),
    inputs: [
      { sizes: [64, 1, 8192], dtype: 'Float' },
      { sizes: [64, 512, 8192], dtype: 'Float' },
    ],
    bytes: (64 * 8192 + 2 * 64 * 512 * 8192) * f32,
  };
}

function bnAddRelu(): Workload {
  const [n, c, h, w] = [8, 256, 56, 56];
  return {
    name: 'bn_add_relu',
    description: 'seed exercise: relu(batch_norm(x) + batch_norm(y)), inference, 8x256x56x56 f32',
    build: () =>
      FusionDefinition.build((fd) => {
        const x = fd.defineTensor({ shape: [-1, -1, -1, -1], contiguity: [true, true, true, true], dtype: 'Float' });
        const y = fd.defineTensor({ shape: [-1, -1, -1, -1], contiguity: [true, true, true, true], dtype: 'Float' });
        const params = Array.from({ length: 8 }, () => fd.defineTensor({ shape: [-1], contiguity: [true], dtype: 'Float' }));
        const eps = fd.defineConstant(1e-5);
        const norm = (t: typeof x, k: number): typeof x => {
          const [wt, b, mean, variance] = params.slice(4 * k, 4 * k + 4).map((p) => fd.ops.broadcastInDim(p, x.shape(), [1])) as [typeof x, typeof x, typeof x, typeof x];
          const invstd = fd.ops.rsqrt(fd.ops.add(variance, eps));
          return fd.ops.add(fd.ops.mul(fd.ops.mul(fd.ops.sub(t, mean), invstd), wt), b);
        };
        fd.addOutput(fd.ops.relu(fd.ops.add(norm(x, 0), norm(y, 1))));
      }),
    inputs: [
      { sizes: [n, c, h, w], dtype: 'Float' },
      { sizes: [n, c, h, w], dtype: 'Float' },
      ...Array.from({ length: 8 }, (_, i): WorkloadInput => ({ sizes: [c], dtype: 'Float', positive: i % 4 === 3 })),
    ],
    bytes: (3 * n * c * h * w + 8 * c) * f32,
  };
}

/** Tiny inputs: measures host overhead per cached execute, not bandwidth. */
export function tinyWorkload(): Workload {
  return {
    name: 'tiny_2x4x8',
    description: 'host overhead: (t0 + t1) * 3 on 2x4x8 f32',
    build: () =>
      FusionDefinition.build((fd) => {
        const t0 = fd.defineTensor({ shape: [-1, -1, -1], contiguity: [true, true, true], dtype: 'Float' });
        const t1 = fd.defineTensor({ shape: [-1, -1, -1], contiguity: [true, true, true], dtype: 'Float' });
        fd.addOutput(fd.ops.mul(fd.ops.add(t0, t1), fd.defineConstant(3.0)));
      }),
    inputs: [
      { sizes: [2, 4, 8], dtype: 'Float' },
      { sizes: [2, 4, 8], dtype: 'Float' },
    ],
    bytes: 3 * 64 * f32,
  };
}

/** nvFuser issue #785 (simplified): sum over [0, 1] of one tensor and pow of another. */
function powSum(): Workload {
  const shape = [16, 512, 4096];
  const n = 16 * 512 * 4096;
  return {
    name: 'pow_sum',
    description: 'issue #785 simplified: sum(t4, [0, 1]) and pow(t6, 3), 16x512x4096 f32 (two kernels)',
    build: () =>
      FusionDefinition.build((fd) => {
        const t4 = fd.defineTensor({ shape: [-1, -1, -1], contiguity: [true, true, true], dtype: 'Float' });
        const t6 = fd.defineTensor({ shape: [-1, -1, -1], contiguity: [true, true, true], dtype: 'Float' });
        fd.addOutput(fd.ops.sum(t4, [0, 1]));
        fd.addOutput(fd.ops.pow(t6, fd.defineConstant(3.0)));
      }),
    inputs: [
      { sizes: shape, dtype: 'Float' },
      { sizes: shape, dtype: 'Float' },
    ],
    bytes: (3 * n + 4096) * f32,
  };
}

/**
 * nvFuser issue #785's real fusion, verbatim, read from the bundled example
 * test-fixtures/definitions/issue785_gelu_bias_grad.py (found from the working directory up).
 */
function geluBiasGradDefinition(): FusionDefinition {
  const file = 'test-fixtures/definitions/issue785_gelu_bias_grad.py';
  for (let dir = resolve(process.cwd()); ; dir = dirname(dir)) {
    const candidate = join(dir, file);
    if (existsSync(candidate)) return importPythonDefinition(readFileSync(candidate, 'utf8'));
    if (dirname(dir) === dir) throw new Error(`gelu_bias_grad workload: ${file} not found from ${process.cwd()} up (run from the repository)`);
  }
}

function geluBiasGrad(): Workload {
  const shape = [16, 512, 4096];
  const n = 16 * 512 * 4096;
  return {
    name: 'gelu_bias_grad',
    description: 'issue #785: gelu backward + bias grad (sum over [0, 1]), 16x512x4096 f32',
    build: geluBiasGradDefinition,
    inputs: [
      { sizes: [], dtype: 'Double', scalar: 1.0 },
      { sizes: [], dtype: 'Double', scalar: 2.0 },
      { sizes: [], dtype: 'Double', scalar: 3.0 },
      { sizes: [], dtype: 'Double', scalar: 4.0 },
      { sizes: shape, dtype: 'Float' },
      { sizes: shape, dtype: 'Float' },
      { sizes: shape, dtype: 'Float' },
    ],
    bytes: (4 * n + 4096) * f32,
  };
}

// Normalizations over the last dim of 16384x4096, as nvFuser's python_definition dumps write them
// (decomposed, fp32 math); only the normalized output leaves the fusion, as in PyTorch's ops.
const ROWS = 16384;
const COLS = 4096;

export function softmaxDef(dtype: string): string {
  return `def softmax(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.max(T1, dims=[1], keepdim=False, dtype=DataType.Null)
    T3 = fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[0])
    T4 = fd.ops.exp(fd.ops.sub(T1, T3))
    T5 = fd.ops.sum(T4, dims=[1], keepdim=False, dtype=DataType.Null)
    T6 = fd.ops.broadcast_in_dim(T5, shape=T0.shape(), broadcast_dims=[0])
    T7 = fd.ops.div(T4, T6)
    fd.add_output(fd.ops.cast(T7, dtype=DataType.${dtype}))
`;
}

export function layerNormDef(dtype: string): string {
  return `def layer_norm(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.${dtype}, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.${dtype}, is_cpu=False)
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4, T5 = fd.ops.var_mean(T3, dims=[1], correction=0, keepdim=False)
    T6 = fd.ops.broadcast_in_dim(T4, shape=T0.shape(), broadcast_dims=[0])
    T7 = fd.ops.broadcast_in_dim(T5, shape=T0.shape(), broadcast_dims=[0])
    S8 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T9 = fd.ops.rsqrt(fd.ops.add(T6, S8))
    T10 = fd.ops.mul(fd.ops.sub(T3, T7), T9)
    T11 = fd.ops.cast(fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    T12 = fd.ops.cast(fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    T13 = fd.ops.add(fd.ops.mul(T10, T11), T12)
    fd.add_output(fd.ops.cast(T13, dtype=DataType.${dtype}))
`;
}

const RMS_NORM_BF16 = `def rms_norm(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.sum(fd.ops.mul(T2, T2), dims=[1], keepdim=False, dtype=DataType.Null)
    S4 = fd.ops.size(T0, dim=1)
    T5 = fd.ops.truediv(T3, S4)
    S6 = fd.define_scalar(1.00000e-06, dtype=DataType.Double)
    T7 = fd.ops.rsqrt(fd.ops.add(fd.ops.broadcast_in_dim(T5, shape=T0.shape(), broadcast_dims=[0]), S6))
    T8 = fd.ops.cast(fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    T9 = fd.ops.mul(fd.ops.mul(T2, T7), T8)
    fd.add_output(fd.ops.cast(T9, dtype=DataType.BFloat16))
`;

// layer_norm backward as test-fixtures/definitions/layer_norm_backward.py writes it (grad_input,
// grad_weight, grad_bias from grad_out, x, the saved mean and rstd, weight), at 16384x4096 with
// 1/H = 1/4096: the inner-outer persistent pattern.
export function layerNormBackwardDef(dtype: string, hidden: number = COLS): string {
  return `def layer_norm_backward(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T4 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.${dtype}, is_cpu=False)
    T5 = fd.ops.cast(T0, dtype=DataType.Float)
    T6 = fd.ops.cast(T1, dtype=DataType.Float)
    T7 = fd.ops.cast(T4, dtype=DataType.Float)
    T9 = fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[0])
    T10 = fd.ops.broadcast_in_dim(T3, shape=T0.shape(), broadcast_dims=[0])
    T12 = fd.ops.mul(fd.ops.sub(T6, T9), T10)
    T13 = fd.ops.broadcast_in_dim(T7, shape=T0.shape(), broadcast_dims=[1])
    T14 = fd.ops.mul(T5, T13)
    T16 = fd.ops.sum(fd.ops.mul(T14, T12), dims=[1], keepdim=False, dtype=DataType.Null)
    T17 = fd.ops.sum(T14, dims=[1], keepdim=False, dtype=DataType.Null)
    S18 = fd.define_scalar(${1 / hidden}, dtype=DataType.Double)
    T21 = fd.ops.broadcast_in_dim(fd.ops.mul(T16, S18), shape=T0.shape(), broadcast_dims=[0])
    T22 = fd.ops.broadcast_in_dim(fd.ops.mul(T17, S18), shape=T0.shape(), broadcast_dims=[0])
    T25 = fd.ops.sub(fd.ops.sub(T14, T22), fd.ops.mul(T12, T21))
    fd.add_output(fd.ops.cast(fd.ops.mul(T25, T10), dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(fd.ops.sum(fd.ops.mul(T5, T12), dims=[0], keepdim=False, dtype=DataType.Null), dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(fd.ops.sum(T5, dims=[0], keepdim=False, dtype=DataType.Null), dtype=DataType.${dtype}))
`;
}

function layerNormBackward(name: string, dtype: DataType): Workload {
  const elt = dtype === 'Float' ? 4 : 2;
  return {
    name,
    description: `layer_norm backward (grad_input, grad_weight, grad_bias), 16384x4096 ${dtype === 'Float' ? 'f32' : 'bf16 (fp32 math)'}`,
    build: () => importPythonDefinition(layerNormBackwardDef(dtype)),
    inputs: [
      { sizes: [ROWS, COLS], dtype },
      { sizes: [ROWS, COLS], dtype },
      { sizes: [ROWS], dtype: 'Float' },
      { sizes: [ROWS], dtype: 'Float', positive: true },
      { sizes: [COLS], dtype },
    ],
    // grad_out and x read, grad_input written: 3 N·H; mean and rstd; weight, grad_weight, grad_bias.
    bytes: 3 * ROWS * COLS * elt + 2 * ROWS * 4 + 3 * COLS * elt,
  };
}

function normalization(name: string, description: string, text: string, dtype: DataType, params: number): Workload {
  const elt = dtype === 'Float' ? 4 : 2;
  return {
    name,
    description,
    build: () => importPythonDefinition(text),
    inputs: [{ sizes: [ROWS, COLS], dtype }, ...Array.from({ length: params }, (): WorkloadInput => ({ sizes: [COLS], dtype }))],
    bytes: (2 * ROWS * COLS + params * COLS) * elt,
  };
}

/** Normalization workloads (16384x4096, last dim) of `tsfuser bench`. */
export function normalizationWorkloads(): Workload[] {
  return [
    normalization('softmax_f32', 'softmax over the last dim, 16384x4096 f32', softmaxDef('Float'), 'Float', 0),
    normalization('softmax_bf16', 'softmax over the last dim, 16384x4096 bf16 (fp32 math)', softmaxDef('BFloat16'), 'BFloat16', 0),
    normalization('layer_norm_f32', 'layer_norm over the last dim with weight and bias, 16384x4096 f32', layerNormDef('Float'), 'Float', 2),
    normalization('layer_norm_bf16', 'layer_norm over the last dim with weight and bias, 16384x4096 bf16 (fp32 math)', layerNormDef('BFloat16'), 'BFloat16', 2),
    normalization('rms_norm_bf16', 'rms_norm over the last dim with weight, 16384x4096 bf16 (fp32 math)', RMS_NORM_BF16, 'BFloat16', 1),
  ];
}

// Dropout (p = 0.1, training) of x plus a residual, then layer_norm with weight and bias (issue
// 24), as nvFuser / Thunder write it: rand_like with the philox seed and offset as scalar inputs,
// keep = rand < 0.9, scale 1 / 0.9, fp32 math, bf16 in and out. The mask is not an output (it is
// never materialized), so the traffic is x, residual, weight and bias read and y written.
export const DROPOUT_SEED = 20261124;
export const DROPOUT_OFFSET = 8;

export function dropoutResidualLayerNormDef(dtype: string): string {
  return `def dropout_residual_layer_norm(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.${dtype}, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.${dtype}, is_cpu=False)
    S4 = fd.define_scalar(None, dtype=DataType.Int)
    S5 = fd.define_scalar(None, dtype=DataType.Int)
    T6 = fd.ops.cast(T0, dtype=DataType.Float)
    T7 = fd.ops.rand_like(T6, rng_seed=S4, rng_offset=S5)
    S8 = fd.define_scalar(0.900000, dtype=DataType.Double)
    T9 = fd.ops.lt(T7, S8)
    T10 = fd.ops.mul(T6, T9)
    S11 = fd.define_scalar(${1 / 0.9}, dtype=DataType.Double)
    T12 = fd.ops.mul(T10, S11)
    T13 = fd.ops.add(T12, fd.ops.cast(T1, dtype=DataType.Float))
    T14, T15 = fd.ops.var_mean(T13, dims=[1], correction=0, keepdim=False)
    T16 = fd.ops.broadcast_in_dim(T14, shape=T0.shape(), broadcast_dims=[0])
    T17 = fd.ops.broadcast_in_dim(T15, shape=T0.shape(), broadcast_dims=[0])
    S18 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T19 = fd.ops.rsqrt(fd.ops.add(T16, S18))
    T20 = fd.ops.mul(fd.ops.sub(T13, T17), T19)
    T21 = fd.ops.cast(fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    T22 = fd.ops.cast(fd.ops.broadcast_in_dim(T3, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    T23 = fd.ops.add(fd.ops.mul(T20, T21), T22)
    fd.add_output(fd.ops.cast(T23, dtype=DataType.${dtype}))
`;
}

/** dropout + residual add + layer_norm, bf16 [16384, 4096] (one inner persistent kernel). */
export function dropoutResidualLayerNorm(rows: number = ROWS, cols: number = COLS): Workload {
  return {
    name: 'dropout_residual_layer_norm_bf16',
    description: `layer_norm(dropout(x, p=0.1) + residual) with weight and bias, ${rows}x${cols} bf16 (fp32 math, RNG in the kernel)`,
    build: () => importPythonDefinition(dropoutResidualLayerNormDef('BFloat16')),
    inputs: [
      { sizes: [rows, cols], dtype: 'BFloat16' },
      { sizes: [rows, cols], dtype: 'BFloat16' },
      { sizes: [cols], dtype: 'BFloat16' },
      { sizes: [cols], dtype: 'BFloat16' },
      { sizes: [], dtype: 'Int', scalar: DROPOUT_SEED },
      { sizes: [], dtype: 'Int', scalar: DROPOUT_OFFSET },
    ],
    // x and residual read, y written; weight and bias read; the seed and offset are scalars.
    bytes: (3 * rows * cols + 2 * cols) * 2,
  };
}

/** layer_norm backward workloads (16384x4096; one inner-outer persistent kernel each). */
export function layerNormBackwardWorkloads(): Workload[] {
  return [layerNormBackward('layer_norm_bwd_f32', 'Float'), layerNormBackward('layer_norm_bwd_bf16', 'BFloat16')];
}

/** embedding lookup (issue 24): 8192 token ids into a [128256, 4096] bf16 table (Llama 3's vocabulary). */
function embeddingLookup(): Workload {
  const [tokens, vocab, hidden] = [8192, 128256, 4096];
  return {
    name: 'embedding_bf16',
    description: `embedding_fwd: ${tokens} token ids into a [${vocab}, ${hidden}] bf16 table`,
    build: () =>
      FusionDefinition.build((fd) => {
        const ids = fd.defineTensor({ shape: [-1], contiguity: [true], dtype: 'Int' });
        const table = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: 'BFloat16' });
        fd.addOutput(fd.ops.embeddingFwd(ids, table));
      }),
    inputs: [
      { sizes: [tokens], dtype: 'Int', indexBound: vocab },
      { sizes: [vocab, hidden], dtype: 'BFloat16', uninitialized: true },
    ],
    // The looked-up rows read once, the output written once, the ids read.
    bytes: 2 * tokens * hidden * 2 + tokens * 8,
  };
}

/** Indexing workloads of `tsfuser bench`. */
export function indexingWorkloads(): Workload[] {
  return [embeddingLookup()];
}

export function benchWorkloads(): Workload[] {
  return [readmePointwise(), bnAddRelu(), powSum(), geluBiasGrad(), ...normalizationWorkloads(), dropoutResidualLayerNorm(), ...layerNormBackwardWorkloads(), ...indexingWorkloads(), ...resizeWorkloads(), ...transposeWorkloads(), ...reshapeWorkloads(), ...gemmWorkloads(), ...llamaBlockWorkloads()];
}
