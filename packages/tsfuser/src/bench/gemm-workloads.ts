// GEMM benchmark workloads of `tsfuser bench`, shared by name with tools/bench/pytorch_bench.py
// (which times F.linear / the same MLP in eager and torch.compile): bf16 linears y = x · Wᵀ at
// the shapes M×N×K (8192×4096×4096, 8192×16384×4096, 8192×4096×16384, 4096×11008×4096),
// linear + bias + gelu(tanh) (one cuBLASLt call with the GELU_BIAS epilogue), and a GPT MLP block
// forward (tokens 8192, hidden 4096, ffn 16384: linear → gelu(tanh) → linear, both with bias;
// two GEMM segments) and backward (gpt-mlp-backward.ts: the grads of x, both weights and both
// biases from dy and the forward's saved tensors — four cuBLASLt calls, DGELU_BGRAD and BGRADA
// among them; timed alone, as pytorch_bench.py times autograd of a saved forward). `flops` (2·M·N·K per GEMM) is the numerator of TFLOP/s; `bytes` the
// inputs read once and the outputs written once. Inputs are `tiled` (a random block repeated):
// a host fill of 10⁸ elements would take longer than the benchmark.

import type { DataType } from '@tsfuser/fusion-ir';
import { FusionDefinition } from '../definition/fusion-definition.js';
import type { Workload } from './workloads.js';
import { gptMlpBackwardDefinition } from './gpt-mlp-backward.js';

const BF16 = 2;

function linearDefinition(dtype: DataType, bias: boolean, gelu: boolean): FusionDefinition {
  return FusionDefinition.build((fd) => {
    const x = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype });
    const w = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype });
    const b = bias ? fd.defineTensor({ shape: [-1], contiguity: [true], dtype }) : null;
    const y = b === null ? fd.ops.linear(x, w) : fd.ops.linear(x, w, b);
    fd.addOutput(gelu ? fd.ops.gelu(y, 'tanh') : y);
  });
}

function gemm(m: number, n: number, k: number): Workload {
  return {
    name: `gemm_bf16_${m}x${n}x${k}`,
    description: `F.linear(x [${m},${k}], W [${n},${k}]) bf16 (one cuBLASLt GEMM, m×n×k ${m}×${n}×${k})`,
    build: () => linearDefinition('BFloat16', false, false),
    inputs: [
      { sizes: [m, k], dtype: 'BFloat16', tiled: true },
      { sizes: [n, k], dtype: 'BFloat16', tiled: true },
    ],
    bytes: (m * k + n * k + m * n) * BF16,
    flops: 2 * m * n * k,
  };
}

/**
 * The two other layouts of a linear's backward, at the GPT MLP's shapes: the data gradient
 * dX = dY · W (`matmul` of row-major [m,k]·[k,n]: both operands as stored) and the weight gradient
 * dW = dYᵀ · X (`matmul` of a transposed view [m,k] of a row-major [k,m]: described to cuBLASLt as
 * transposed, not copied). Timed beside torch.mm on the same layouts so that a GEMM of the
 * backward that is behind shows alone, not inside gpt_mlp_bwd.
 */
function backwardGemm(kind: 'dgrad' | 'wgrad', m: number, n: number, k: number): Workload {
  return {
    name: `gemm_bf16_${kind}_${m}x${n}x${k}`,
    description:
      kind === 'dgrad'
        ? `torch.mm(dy [${m},${k}], W [${k},${n}]) bf16 (a linear's data gradient; one cuBLASLt GEMM)`
        : `torch.mm(dy.t(), x) with dy [${k},${m}], x [${k},${n}] bf16 (a linear's weight gradient; one cuBLASLt GEMM, dy read transposed)`,
    build: () =>
      FusionDefinition.build((fd) => {
        const a = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: 'BFloat16' });
        const b = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: 'BFloat16' });
        fd.addOutput(fd.ops.matmul(kind === 'dgrad' ? a : fd.ops.permute(a, [1, 0]), b));
      }),
    inputs: [
      { sizes: kind === 'dgrad' ? [m, k] : [k, m], dtype: 'BFloat16', tiled: true },
      { sizes: [k, n], dtype: 'BFloat16', tiled: true },
    ],
    bytes: (m * k + n * k + m * n) * BF16,
    flops: 2 * m * n * k,
  };
}

function linearBiasGelu(m: number, n: number, k: number): Workload {
  return {
    name: 'linear_bias_gelu_bf16',
    description: `gelu(F.linear(x [${m},${k}], W [${n},${k}], b [${n}]), approximate='tanh') bf16 (one cuBLASLt call, GELU_BIAS epilogue)`,
    build: () => linearDefinition('BFloat16', true, true),
    inputs: [
      { sizes: [m, k], dtype: 'BFloat16', tiled: true },
      { sizes: [n, k], dtype: 'BFloat16', tiled: true },
      { sizes: [n], dtype: 'BFloat16' },
    ],
    bytes: (m * k + n * k + n + m * n) * BF16,
    flops: 2 * m * n * k,
  };
}

function gptMlp(tokens: number, hidden: number, ffn: number): Workload {
  return {
    name: 'gpt_mlp_fwd_bf16',
    description: `GPT MLP forward: linear(gelu(linear(x [${tokens},${hidden}], W1 [${ffn},${hidden}], b1), tanh), W2 [${hidden},${ffn}], b2) bf16 (two GEMM segments)`,
    build: () =>
      FusionDefinition.build((fd) => {
        const x = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: 'BFloat16' });
        const w1 = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: 'BFloat16' });
        const b1 = fd.defineTensor({ shape: [-1], contiguity: [true], dtype: 'BFloat16' });
        const w2 = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: 'BFloat16' });
        const b2 = fd.defineTensor({ shape: [-1], contiguity: [true], dtype: 'BFloat16' });
        const h = fd.ops.gelu(fd.ops.linear(x, w1, b1), 'tanh');
        fd.addOutput(fd.ops.linear(h, w2, b2));
      }),
    inputs: [
      { sizes: [tokens, hidden], dtype: 'BFloat16', tiled: true },
      { sizes: [ffn, hidden], dtype: 'BFloat16', tiled: true },
      { sizes: [ffn], dtype: 'BFloat16' },
      { sizes: [hidden, ffn], dtype: 'BFloat16', tiled: true },
      { sizes: [hidden], dtype: 'BFloat16' },
    ],
    // x, both weights and biases read once, the output written once (the hidden activation's round trip is not counted)
    bytes: (tokens * hidden + 2 * ffn * hidden + ffn + hidden + tokens * hidden) * BF16,
    flops: 2 * 2 * tokens * hidden * ffn,
  };
}

function gptMlpBackward(tokens: number, hidden: number, ffn: number): Workload {
  const [t, h, f] = [tokens, hidden, ffn];
  return {
    name: 'gpt_mlp_bwd_bf16',
    description: `GPT MLP backward (tokens ${t}, hidden ${h}, ffn ${f}, gelu tanh): dx, dW1, db1, dW2, db2 from dy and the saved x, W1, h, gelu(h), W2 bf16 (four cuBLASLt calls: DGELU_BGRAD, BGRADA, two plain)`,
    build: () => gptMlpBackwardDefinition('BFloat16'),
    // x, W1, W2, h, g, dy (gpt-mlp-backward.ts order); weights scaled as nn.Linear's init keeps the grads O(1)
    inputs: [
      { sizes: [t, h], dtype: 'BFloat16', tiled: true },
      { sizes: [f, h], dtype: 'BFloat16', tiled: true, scale: 0.02 },
      { sizes: [h, f], dtype: 'BFloat16', tiled: true, scale: 0.02 },
      { sizes: [t, f], dtype: 'BFloat16', tiled: true },
      { sizes: [t, f], dtype: 'BFloat16', tiled: true },
      { sizes: [t, h], dtype: 'BFloat16', tiled: true },
    ],
    // inputs read once (x, W1, W2, h, g, dy), grads written once (dx, dW1, db1, dW2, db2)
    bytes: (t * h + 2 * f * h + 2 * t * f + t * h + t * h + f * h + f + h * f + h) * BF16,
    flops: 4 * 2 * t * h * f,
  };
}

export function gemmWorkloads(): Workload[] {
  return [
    gemm(8192, 4096, 4096),
    gemm(8192, 16384, 4096),
    gemm(8192, 4096, 16384),
    gemm(4096, 11008, 4096),
    backwardGemm('dgrad', 8192, 4096, 16384),
    backwardGemm('wgrad', 16384, 4096, 8192),
    linearBiasGelu(8192, 16384, 4096),
    gptMlp(8192, 4096, 16384),
    gptMlpBackward(8192, 4096, 16384),
  ];
}
