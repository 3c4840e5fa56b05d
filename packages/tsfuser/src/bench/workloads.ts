// The benchmark workloads of `tsfuser bench`, shared by name with tools/bench/pytorch_bench.py
// (same shapes, dtypes and math) so the table can put tsfuser, eager and torch.compile side by
// side. `bytes` is the minimal global traffic (each input read once, each output written once),
// the numerator of GB/s.

import type { DataType } from '@tsfuser/fusion-ir';
import { FusionDefinition } from '../definition/fusion-definition.js';

export interface WorkloadInput {
  sizes: number[];
  dtype: DataType;
  /** Positive values (variances, divisors). */
  positive?: boolean;
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

export function benchWorkloads(): Workload[] {
  return [readmePointwise(), bnAddRelu()];
}
