// Resize benchmark workloads of `tsfuser bench` (slice / pad / cat in one pointwise kernel),
// shared by name with tools/bench/pytorch_bench.py: cat of three [8192, 4096] bf16 tensors
// along dim 0 and dim 1, a pad of [8192, 4096] bf16 by 8 columns on each side and a row above
// and below, and RoPE (rotate-half: x·cos + cat(−x[…, 64:], x[…, :64])·sin, computed in float)
// on x [8, 4096, 32, 128] bf16 with cos / sin [1, 4096, 1, 128] bf16. `bytes`: each input read
// once, each output written once.

import { FusionDefinition } from '../definition/fusion-definition.js';
import type { Workload } from './workloads.js';

const bf16 = 2;
const [ROWS, COLS] = [8192, 4096];

function cat3(dim: 0 | 1): Workload {
  return {
    name: `cat3_dim${dim}_bf16`,
    description: `torch.cat of three [${ROWS},${COLS}] bf16 tensors along dim ${dim}`,
    build: () =>
      FusionDefinition.build((fd) => {
        const ts = [0, 1, 2].map(() => fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: 'BFloat16' }));
        fd.addOutput(fd.ops.cat(ts, dim));
      }),
    inputs: [0, 1, 2].map(() => ({ sizes: [ROWS, COLS], dtype: 'BFloat16' as const })),
    bytes: 2 * 3 * ROWS * COLS * bf16,
  };
}

function padBf16(): Workload {
  return {
    name: 'pad_bf16',
    description: `F.pad(x, (8, 8, 1, 1)) of a [${ROWS},${COLS}] bf16 tensor (zeros around it)`,
    build: () =>
      FusionDefinition.build((fd) => {
        const x = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: 'BFloat16' });
        fd.addOutput(fd.ops.pad(x, [8, 8, 1, 1]));
      }),
    inputs: [{ sizes: [ROWS, COLS], dtype: 'BFloat16' }],
    bytes: (ROWS * COLS + (ROWS + 2) * (COLS + 16)) * bf16,
  };
}

const [B, S, H, D] = [8, 4096, 32, 128];

export function ropeDefinition(): FusionDefinition {
  return FusionDefinition.build((fd) => {
    const x = fd.defineTensor({ shape: [-1, -1, -1, -1], contiguity: [true, true, true, true], dtype: 'BFloat16' });
    const cos = fd.defineTensor({ shape: [1, -1, 1, -1], contiguity: [null, true, null, true], dtype: 'BFloat16' });
    const sin = fd.defineTensor({ shape: [1, -1, 1, -1], contiguity: [null, true, null, true], dtype: 'BFloat16' });
    const xf = fd.ops.cast(x, 'Float');
    const [b, s, h] = [x.size(0), x.size(1), x.size(2)];
    const x1 = fd.ops.slice(xf, [0, 0, 0, 0], [b, s, h, D / 2]);
    const x2 = fd.ops.slice(xf, [0, 0, 0, D / 2], [b, s, h, D]);
    const rotated = fd.ops.cat([fd.ops.neg(x2), x1], 3);
    const out = fd.ops.add(fd.ops.mul(xf, fd.ops.cast(cos, 'Float')), fd.ops.mul(rotated, fd.ops.cast(sin, 'Float')));
    fd.addOutput(fd.ops.cast(out, 'BFloat16'));
  });
}

function ropeBf16(): Workload {
  return {
    name: 'rope_bf16',
    description: `RoPE (rotate half) on x [${B},${S},${H},${D}] bf16 with cos/sin [1,${S},1,${D}]: slice + neg + cat + mul + add`,
    build: ropeDefinition,
    inputs: [
      { sizes: [B, S, H, D], dtype: 'BFloat16' },
      { sizes: [1, S, 1, D], dtype: 'BFloat16' },
      { sizes: [1, S, 1, D], dtype: 'BFloat16' },
    ],
    bytes: (2 * B * S * H * D + 2 * S * D) * bf16,
  };
}

export function resizeWorkloads(): Workload[] {
  return [cat3(0), cat3(1), padBf16(), ropeBf16()];
}
