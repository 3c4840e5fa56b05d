// The benchmark workloads of `tsfuser bench`, shared by name with tools/bench/pytorch_bench.py
// (same shapes, dtypes and math) so the table can put tsfuser, eager and torch.compile side by
// side. `bytes` is the minimal global traffic (each input read once, each output written once),
// the numerator of GB/s.

import type { DataType } from '@tsfuser/fusion-ir';
import { FusionDefinition } from '../definition/fusion-definition.js';
import { importPythonDefinition } from '../python/import-definition.js';

export interface WorkloadInput {
  sizes: number[];
  dtype: DataType;
  /** Positive values (variances, divisors). */
  positive?: boolean;
  /** A scalar input with this value (sizes ignored). */
  scalar?: number;
}

export interface Workload {
  name: string;
  description: string;
  build: () => FusionDefinition;
  inputs: WorkloadInput[];
  bytes: number;
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

/** nvFuser issue #785's real fusion, verbatim: gelu backward + bias gradient. */
const GELU_BIAS_GRAD = `def nvfuser_fusion_id6(fd : FusionDefinition) -> None :
    S0 = fd.define_scalar(None, dtype=DataType.Double)
    S1 = fd.define_scalar(None, dtype=DataType.Double)
    S2 = fd.define_scalar(None, dtype=DataType.Double)
    S3 = fd.define_scalar(None, dtype=DataType.Double)
    T4 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    T5 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    T6 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    S7 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T8 = fd.ops.mul(S7, T6)
    S9 = fd.define_scalar(3.00000, dtype=DataType.Double)
    T10 = fd.ops.pow(T6, S9)
    S11 = fd.define_scalar(0.0447150, dtype=DataType.Double)
    T12 = fd.ops.mul(S11, T10)
    T13 = fd.ops.add(T6, T12)
    S14 = fd.define_scalar(0.797885, dtype=DataType.Double)
    T15 = fd.ops.mul(S14, T13)
    T16 = fd.ops.tanh(T15)
    S17 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T18 = fd.ops.add(S17, T16)
    T19 = fd.ops.sum(T4, axes=[0, 1], keepdim=False, dtype=DataType.Null)
    T20 = fd.ops.mul(T5, T18)
    T21 = fd.ops.mul(T5, T8)
    S22 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T23 = fd.ops.mul(S22, T21)
    T24 = fd.ops.mul(T16, T16)
    S25 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T26 = fd.ops.sub(S25, T24)
    T27 = fd.ops.mul(T23, T26)
    T28 = fd.ops.mul(T27, S3)
    S29 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T30 = fd.ops.mul(S29, T28)
    T31 = fd.ops.mul(T30, S2)
    T32 = fd.ops.mul(T31, S1)
    S33 = fd.define_scalar(2.00000, dtype=DataType.Double)
    T34 = fd.ops.pow(T6, S33)
    T35 = fd.ops.mul(T32, T34)
    T36 = fd.ops.add(T30, T35)
    T37 = fd.ops.mul(T20, S0)
    T38 = fd.ops.add(T36, T37)
    fd.add_output(T19)
    fd.add_output(T38)
`;

function geluBiasGrad(): Workload {
  const shape = [16, 512, 4096];
  const n = 16 * 512 * 4096;
  return {
    name: 'gelu_bias_grad',
    description: 'issue #785: gelu backward + bias grad (sum over [0, 1]), 16x512x4096 f32',
    build: () => importPythonDefinition(GELU_BIAS_GRAD),
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

export function benchWorkloads(): Workload[] {
  return [readmePointwise(), bnAddRelu(), powSum(), geluBiasGrad()];
}
