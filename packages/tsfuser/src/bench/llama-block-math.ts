// The pieces of the LLaMA decoder block's definitions (llama-block-forward.ts / -backward.ts),
// each written with fd.ops as a bf16 nn.Module computes it in PyTorch eager: every bf16 op
// rounds its result to bf16 (computed in f32: cast up, op, cast down), RMSNorm's statistic and
// SiLU in f32 (HF LlamaRMSNorm, F.silu on bf16), RoPE's rotate-half on bf16 cos / sin tables
// (HF's LlamaRotaryEmbedding returns them cast to the activations' dtype), and the backward
// pieces as autograd computes them from the saved tensors.
// Invariant: each helper adds ops only to the definition it is given; shapes are the config's
// constants, so a definition is built for one config.

import type { FusionDefinition } from '../definition/fusion-definition.js';
import type { TensorHandle } from '../definition/handles.js';
import type { LlamaBlockConfig } from './llama-block-config.js';

type Fd = FusionDefinition;
type T = TensorHandle;

/** A bf16 elementwise op as eager bf16 computes it: in f32, the result rounded to bf16. */
function bf16Op(fd: Fd, a: T, b: T, op: 'add' | 'mul'): T {
  return fd.ops.cast(fd.ops[op](fd.ops.cast(a, 'Float'), fd.ops.cast(b, 'Float')), 'BFloat16');
}

export const bf16Add = (fd: Fd, a: T, b: T): T => bf16Op(fd, a, b, 'add');
export const bf16Mul = (fd: Fd, a: T, b: T): T => bf16Op(fd, a, b, 'mul');

/** [B, T, n·E] → [B, n, T, E] (HF: `.view(B, T, n, E).transpose(1, 2)`). */
export function splitHeads(fd: Fd, c: LlamaBlockConfig, t: T, n: number): T {
  return fd.ops.permute(fd.ops.reshape(t, [c.batch, c.seq, n, c.headDim]), [0, 2, 1, 3]);
}

/** [B, n, T, E] → [B·T, n·E] (HF: `.transpose(1, 2).reshape(B, T, n·E)`, then the tokens flattened for a weight grad). */
export function mergeHeadsFlat(fd: Fd, c: LlamaBlockConfig, t: T, n: number): T {
  return fd.ops.reshape(fd.ops.permute(t, [0, 2, 1, 3]), [c.batch * c.seq, n * c.headDim]);
}

/** [B, T, k] → [B·T, k]: the token dims of a weight grad's GEMM. */
export function flattenTokens(fd: Fd, c: LlamaBlockConfig, t: T, k: number): T {
  return fd.ops.reshape(t, [c.batch * c.seq, k]);
}

/** rstd = rsqrt(mean(x², -1) + eps) over the hidden dim, f32 [B, T] (HF's `variance` path). */
export function rmsStatistic(fd: Fd, c: LlamaBlockConfig, xf: T): T {
  const meanSquare = fd.ops.div(fd.ops.sum(fd.ops.mul(xf, xf), [2]), fd.defineScalar(c.hidden, 'Double'));
  return fd.ops.rsqrt(fd.ops.add(meanSquare, fd.defineScalar(c.eps, 'Double')));
}

/** The normalized row before the weight, rounded to bf16: `(x.float() * rstd).to(bf16)`. */
export function rmsNormalized(fd: Fd, c: LlamaBlockConfig, xf: T, rstd: T): T {
  const r = fd.ops.broadcastInDim(rstd, [c.batch, c.seq, c.hidden], [0, 1]);
  return fd.ops.cast(fd.ops.mul(xf, r), 'BFloat16');
}

/** The weight [D] broadcast over the tokens. */
function rowWeight(fd: Fd, c: LlamaBlockConfig, w: T): T {
  return fd.ops.broadcastInDim(w, [c.batch, c.seq, c.hidden], [2]);
}

/** HF LlamaRMSNorm: `weight * (x.float() * rstd).to(bf16)`; returns rstd (saved) and the output. */
export function rmsNorm(fd: Fd, c: LlamaBlockConfig, x: T, w: T): { rstd: T; output: T } {
  const xf = fd.ops.cast(x, 'Float');
  const rstd = rmsStatistic(fd, c, xf);
  return { rstd, output: bf16Mul(fd, rowWeight(fd, c, w), rmsNormalized(fd, c, xf, rstd)) };
}

/**
 * LlamaRMSNorm's backward from the saved x and rstd, as autograd computes it: dweight =
 * sum_{B,T} bf16(dn · t) (t the bf16 normalized row, recomputed), dt = bf16(dn · w), then in f32
 * through `hf * rstd`, `rsqrt(var + eps)`, `mean` and `pow(2)`: dx = dt·r − (r³/D)·hf·Σ(dt·hf).
 */
export function rmsNormBackward(fd: Fd, c: LlamaBlockConfig, dn: T, x: T, rstd: T, w: T): { dx: T; dweight: T } {
  const xf = fd.ops.cast(x, 'Float');
  const t = rmsNormalized(fd, c, xf, rstd);
  const dweight = fd.ops.cast(fd.ops.sum(fd.ops.cast(bf16Mul(fd, dn, t), 'Float'), [0, 1]), 'BFloat16');
  const dt = fd.ops.cast(bf16Mul(fd, dn, rowWeight(fd, c, w)), 'Float');
  const shape = [c.batch, c.seq, c.hidden];
  const r = fd.ops.broadcastInDim(rstd, shape, [0, 1]);
  const dr = fd.ops.sum(fd.ops.mul(dt, xf), [2]);
  // rsqrt's backward −½·g·r³, mean's 1/D, pow(2)'s 2·x: the coefficient of hf per row.
  const r3 = fd.ops.mul(fd.ops.mul(rstd, rstd), rstd);
  const coefficient = fd.ops.mul(fd.ops.mul(dr, r3), fd.defineScalar(-1 / c.hidden, 'Double'));
  const dxf = fd.ops.add(fd.ops.mul(dt, r), fd.ops.mul(fd.ops.broadcastInDim(coefficient, shape, [0, 1]), xf));
  return { dx: fd.ops.cast(dxf, 'BFloat16'), dweight };
}

/** cos / sin [T, E] broadcast over [B, n, T, E]. */
function ropeTable(fd: Fd, c: LlamaBlockConfig, table: T, n: number): T {
  return fd.ops.broadcastInDim(table, [c.batch, n, c.seq, c.headDim], [2, 3]);
}

/** The halves of the head dim: [..., :E/2] and [..., E/2:]. */
function halves(fd: Fd, c: LlamaBlockConfig, t: T, n: number): [T, T] {
  const half = c.headDim / 2;
  const end = [c.batch, n, c.seq];
  return [fd.ops.slice(t, [0, 0, 0, 0], [...end, half]), fd.ops.slice(t, [0, 0, 0, half], [...end, c.headDim])];
}

/** HF apply_rotary_pos_emb on [B, n, T, E]: `q * cos + rotate_half(q) * sin`, rotate_half = cat(−q₂, q₁), bf16 ops. */
export function rope(fd: Fd, c: LlamaBlockConfig, x: T, cos: T, sin: T, n: number): T {
  const [x1, x2] = halves(fd, c, x, n);
  const rotated = fd.ops.cat([fd.ops.neg(x2), x1], 3);
  return bf16Add(fd, bf16Mul(fd, x, ropeTable(fd, c, cos, n)), bf16Mul(fd, rotated, ropeTable(fd, c, sin, n)));
}

/**
 * RoPE's adjoint (rotate-half transposed): with s = bf16(dy · sin), dx = bf16(bf16(dy · cos) +
 * cat(s₂, −s₁)). `flipSign` builds the wrong adjoint cat(−s₂, s₁) (tests show the check fails).
 */
export function ropeBackward(fd: Fd, c: LlamaBlockConfig, dy: T, cos: T, sin: T, n: number, flipSign = false): T {
  const s = bf16Mul(fd, dy, ropeTable(fd, c, sin, n));
  const [s1, s2] = halves(fd, c, s, n);
  const transposed = flipSign ? fd.ops.cat([fd.ops.neg(s2), s1], 3) : fd.ops.cat([s2, fd.ops.neg(s1)], 3);
  return bf16Add(fd, bf16Mul(fd, dy, ropeTable(fd, c, cos, n)), transposed);
}

/** F.silu on bf16: in f32, rounded to bf16. */
export function silu(fd: Fd, gate: T): T {
  return fd.ops.cast(fd.ops.silu(fd.ops.cast(gate, 'Float')), 'BFloat16');
}

/** silu's backward as PyTorch computes it on bf16 (f32 inside): g · σ(x) · (1 + x · (1 − σ(x))). */
export function siluBackward(fd: Fd, grad: T, gate: T): T {
  const x = fd.ops.cast(gate, 'Float');
  const sigma = fd.ops.sigmoid(x);
  const slope = fd.ops.mul(sigma, fd.ops.add(fd.ops.mul(x, fd.ops.sub(fd.defineScalar(1, 'Double'), sigma)), fd.defineScalar(1, 'Double')));
  return fd.ops.cast(fd.ops.mul(fd.ops.cast(grad, 'Float'), slope), 'BFloat16');
}

/** A weight grad dW = dYᵀ · X over the flattened tokens: [out, B·T] · [B·T, in] → [out, in]. */
export function weightGrad(fd: Fd, dyFlat: T, xFlat: T): T {
  return fd.ops.matmul(fd.ops.permute(dyFlat, [1, 0]), xFlat);
}
