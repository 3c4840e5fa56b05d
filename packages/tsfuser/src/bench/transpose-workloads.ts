// Transpose benchmark workloads of `tsfuser bench`, shared by name with
// tools/bench/pytorch_bench.py (which times x.t().contiguous() / x.permute(…).contiguous() in
// eager and torch.compile): a 2-D transpose of a [16384, 4096] f32 and bf16 tensor (the
// transpose scheduler: shared-memory tiles, vectorized on both sides) and the attention head
// merge [B, H, S, D] → [B, S, H, D] with B = 8, H = 32, S = 4096, D = 128 in bf16 (D stays
// innermost, so nvFuser's rule — and tsfuser's — leaves it to the pointwise scheduler: a
// vectorized batched copy). Each output is asked for row-major (stride_order), so it is written
// by a kernel rather than returned as a view. `bytes`: the input read once and the output
// written once (the copy floor).

import type { DataType } from '@tsfuser/fusion-ir';
import { FusionDefinition } from '../definition/fusion-definition.js';
import type { Workload } from './workloads.js';

const [ROWS, COLS] = [16384, 4096];
const [B, H, S, D] = [8, 32, 4096, 128];

/** A permute of a contiguous input of `sizes`, written row-major (torch's .permute(…).contiguous()). */
export function permuteDefinition(rank: number, perm: readonly number[], dtype: DataType): FusionDefinition {
  return FusionDefinition.build((fd) => {
    const x = fd.defineTensor({ shape: new Array<number>(rank).fill(-1), contiguity: new Array<boolean>(rank).fill(true), dtype });
    fd.addOutput(fd.ops.permute(x, perm), { strideOrder: [...Array(rank).keys()].map((d) => rank - 1 - d) });
  });
}

function transpose2d(dtype: 'Float' | 'BFloat16'): Workload {
  const bytes = dtype === 'Float' ? 4 : 2;
  const short = dtype === 'Float' ? 'f32' : 'bf16';
  return {
    name: `transpose_${short}`,
    description: `x.t().contiguous() of a [${ROWS},${COLS}] ${short} tensor (transpose scheduler)`,
    build: () => permuteDefinition(2, [1, 0], dtype),
    inputs: [{ sizes: [ROWS, COLS], dtype }],
    bytes: 2 * ROWS * COLS * bytes,
  };
}

function permuteBshd(): Workload {
  return {
    name: 'permute_bshd_bf16',
    description: `x.permute(0, 2, 1, 3).contiguous() of x [B=${B},H=${H},S=${S},D=${D}] bf16 → [B,S,H,D] (attention head merge; pointwise: D stays innermost)`,
    build: () => permuteDefinition(4, [0, 2, 1, 3], 'BFloat16'),
    inputs: [{ sizes: [B, H, S, D], dtype: 'BFloat16' }],
    bytes: 2 * B * H * S * D * 2,
  };
}

export function transposeWorkloads(): Workload[] {
  return [transpose2d('Float'), transpose2d('BFloat16'), permuteBshd()];
}
