// Reshape benchmark workloads of `tsfuser bench` (issue 20), shared by name with
// tools/bench/pytorch_bench.py: the attention prologue's reshape + layer_norm + reshape back —
// x [B, S, H·D] bf16 reshaped to [B·S, H·D], layer_norm over the last dim with weight and bias
// (fp32 math), reshaped back to [B, S, H·D] — at B = 8, S = 4096, H·D = 32·128, one inner
// persistent kernel (the reshapes indexed through their split/merge). `bytes`: the copy floor,
// each input read once and the output written once.

import { FusionDefinition } from '../definition/fusion-definition.js';
import type { Workload } from './workloads.js';

const bf16 = 2;
const [B, S, HD] = [8, 4096, 32 * 128];

/** reshape([b, s, hd] → [b·s, hd]) + layer_norm(weight, bias, eps 1e-5) + reshape back, bf16 in and out. */
export function reshapeLayerNormDefinition(b: number, s: number, hd: number): FusionDefinition {
  return FusionDefinition.build((fd) => {
    const x = fd.defineTensor({ shape: [-1, -1, -1], contiguity: [true, true, true], dtype: 'BFloat16' });
    const w = fd.defineTensor({ shape: [-1], contiguity: [true], dtype: 'BFloat16' });
    const bias = fd.defineTensor({ shape: [-1], contiguity: [true], dtype: 'BFloat16' });
    const rows = fd.ops.cast(fd.ops.reshape(x, [b * s, hd]), 'Float');
    const [variance, mean] = fd.ops.varMean(rows, [1], 0, false);
    const shape = rows.shape();
    const invstd = fd.ops.rsqrt(fd.ops.add(fd.ops.broadcastInDim(variance, shape, [0]), fd.defineConstant(1e-5)));
    const normed = fd.ops.mul(fd.ops.sub(rows, fd.ops.broadcastInDim(mean, shape, [0])), invstd);
    const wf = fd.ops.cast(fd.ops.broadcastInDim(w, shape, [1]), 'Float');
    const bf = fd.ops.cast(fd.ops.broadcastInDim(bias, shape, [1]), 'Float');
    const y = fd.ops.cast(fd.ops.add(fd.ops.mul(normed, wf), bf), 'BFloat16');
    fd.addOutput(fd.ops.reshape(y, [b, s, hd]));
  });
}

function reshapeLayerNormPrologue(): Workload {
  return {
    name: 'reshape_layer_norm_prologue_bf16',
    description: `attention prologue: reshape [${B},${S},${HD}] -> [${B * S},${HD}], layer_norm with weight and bias (fp32 math), reshape back; bf16`,
    build: () => reshapeLayerNormDefinition(B, S, HD),
    inputs: [
      { sizes: [B, S, HD], dtype: 'BFloat16' },
      { sizes: [HD], dtype: 'BFloat16' },
      { sizes: [HD], dtype: 'BFloat16' },
    ],
    bytes: (2 * B * S * HD + 2 * HD) * bf16,
  };
}

export function reshapeWorkloads(): Workload[] {
  return [reshapeLayerNormPrologue()];
}
