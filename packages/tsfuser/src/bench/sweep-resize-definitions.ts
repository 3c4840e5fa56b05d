// Sweep families of nvFuser's benchmarks/python that slice and concatenate (test_rope, test_cat),
// in python_definition form with fp32 math. rope: llama's rotate-half (rope_ops.py apply_rope,
// HF llama's cos / sin of shape [S, D]) on x [B, H, S, D] = [1, hidden / 128, rows, 128]:
// x · cos + cat(−x[…, 64:], x[…, :64]) · sin, cos / sin [rows, 128] broadcast over B and H (points
// whose hidden 128 does not divide are left out), and its backward w.r.t. x. cat: torch.cat([a, b], -1) of a [rows, ⌊h/2⌋]
// and b [rows, h − ⌊h/2⌋] into [rows, h] — the shape of nvFuser's test_cat qkv-gradient
// concatenations (nanogpt_bwd_6), at every sweep size. tools/bench/sweep_pytorch_model.py times
// the same on the PyTorch side.

import { ROPE_HEAD_SIZE } from './sweep-points.js';

const full = (t: string, dtype: string): string => `    ${t} = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)\n`;

/** Rotate-half RoPE. Inputs: x [B, H, S, D], cos [S, D], sin [S, D]. Output: the roped x. */
export function ropeDef(dtype: string): string {
  const half = ROPE_HEAD_SIZE / 2;
  return `def rope(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.${dtype}, is_cpu=False)
${full('T1', dtype)}${full('T2', dtype)}    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4 = fd.ops.slice(T3, start_indices=[0, 0, 0, 0], end_indices=[T0.size(0), T0.size(1), T0.size(2), ${half}], strides=[1, 1, 1, 1], manual_normalization=0)
    T5 = fd.ops.slice(T3, start_indices=[0, 0, 0, ${half}], end_indices=[T0.size(0), T0.size(1), T0.size(2), ${ROPE_HEAD_SIZE}], strides=[1, 1, 1, 1], manual_normalization=0)
    T6 = fd.ops.cat([fd.ops.neg(T5), T4], dim=3, manual_padding=0)
    T7 = fd.ops.cast(fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[2, 3]), dtype=DataType.Float)
    T8 = fd.ops.cast(fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[2, 3]), dtype=DataType.Float)
    T9 = fd.ops.add(fd.ops.mul(T3, T7), fd.ops.mul(T6, T8))
    fd.add_output(fd.ops.cast(T9, dtype=DataType.${dtype}))
`;
}

/**
 * The backward of rope w.r.t. x (test_rope's bwd): with v = dy · sin, dx = dy · cos +
 * cat(v[…, 64:], −v[…, :64]) — the transpose of rotate-half. Inputs: grad_out [B, H, S, D], cos, sin.
 */
export function ropeBackwardDef(dtype: string): string {
  const half = ROPE_HEAD_SIZE / 2;
  const end = (d: number): string => `[T0.size(0), T0.size(1), T0.size(2), ${d}]`;
  return `def rope_bwd(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.${dtype}, is_cpu=False)
${full('T1', dtype)}${full('T2', dtype)}    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T7 = fd.ops.cast(fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[2, 3]), dtype=DataType.Float)
    T8 = fd.ops.cast(fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[2, 3]), dtype=DataType.Float)
    T9 = fd.ops.mul(T3, T8)
    T10 = fd.ops.slice(T9, start_indices=[0, 0, 0, 0], end_indices=${end(half)}, strides=[1, 1, 1, 1], manual_normalization=0)
    T11 = fd.ops.slice(T9, start_indices=[0, 0, 0, ${half}], end_indices=${end(ROPE_HEAD_SIZE)}, strides=[1, 1, 1, 1], manual_normalization=0)
    T12 = fd.ops.cat([T11, fd.ops.neg(T10)], dim=3, manual_padding=0)
    fd.add_output(fd.ops.cast(fd.ops.add(fd.ops.mul(T3, T7), T12), dtype=DataType.${dtype}))
`;
}

/** torch.cat([a, b], -1). Inputs: a [rows, ⌊h/2⌋], b [rows, h − ⌊h/2⌋]. */
export function catDef(dtype: string): string {
  return `def cat(fd : FusionDefinition) -> None :
${full('T0', dtype)}${full('T1', dtype)}    T2 = fd.ops.cat([T0, T1], dim=1, manual_padding=0)
    fd.add_output(T2)
`;
}
