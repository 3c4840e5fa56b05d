// Sweep families of nvFuser's benchmarks/python beside the normalizations: the backward passes of
// silu·mul and scale·bias·relu, the tanh-gelu backward followed by a reduction over either axis,
// a broadcast add of a per-row vector, and rms_norm of a residual add (test_silu_mul_bwd,
// test_scale_bias_relu_bwd, test_gelu_bwd_reduction, test_broadcast_add_fwd, test_rmsnorm_add_fwd),
// in python_definition form with fp32 math. tools/bench/sweep_pytorch.py times the same outputs.

const full = (t: string, dtype: string): string => `    ${t} = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)\n`;
const column = (t: string, dtype: string): string => `    ${t} = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.${dtype}, is_cpu=False)\n`;
const float = (t: string, from: string): string => `    ${t} = fd.ops.cast(${from}, dtype=DataType.Float)\n`;

/**
 * Backward of silu(x) · y. Inputs: grad_out, x, y. Outputs: grad_y = dy · silu(x), then
 * grad_x = dy · y · σ(x) · (1 + x · (1 − σ(x))) — nvFuser's output order.
 */
export function siluMulBackwardDef(dtype: string): string {
  return `def silu_mul_bwd(fd : FusionDefinition) -> None :
${full('T0', dtype)}${full('T1', dtype)}${full('T2', dtype)}${float('T3', 'T0')}${float('T4', 'T1')}${float('T5', 'T2')}    T6 = fd.ops.sigmoid(T4)
    S7 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T8 = fd.ops.add(S7, fd.ops.mul(T4, fd.ops.sub(S7, T6)))
    T9 = fd.ops.mul(fd.ops.mul(fd.ops.mul(T3, T5), T6), T8)
    fd.add_output(fd.ops.cast(fd.ops.mul(T3, fd.ops.mul(T4, T6)), dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(T9, dtype=DataType.${dtype}))
`;
}

/** Backward of relu(x · scale + bias) w.r.t. x. Inputs (nvFuser's order): scale [H], the relu's mask (Bool), grad_out. */
export function scaleBiasReluBackwardDef(dtype: string): string {
  return `def scale_bias_relu_bwd(fd : FusionDefinition) -> None :
${column('T0', dtype)}${full('B1', 'Bool')}${full('T2', dtype)}    T3 = fd.ops.cast(fd.ops.broadcast_in_dim(T0, shape=T2.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    S4 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T5 = fd.ops.where(B1, fd.ops.cast(T2, dtype=DataType.Float), S4)
    fd.add_output(fd.ops.cast(fd.ops.mul(T5, T3), dtype=DataType.${dtype}))
`;
}

/**
 * Σ over `axis` of dy · gelu_tanh'(x + bias), bias per column. Inputs: x, grad_out, bias.
 * gelu_tanh(u) = u/2 · (1 + tanh(k·(u + 0.044715·u³))), k = √(2/π); its derivative
 * (1 + t)/2 + u/2 · (1 − t²) · k · (1 + 3·0.044715·u²). Output [H] (axis 0) or [rows] (axis 1).
 */
export function geluBackwardReductionDef(dtype: string, axis: 0 | 1): string {
  return `def gelu_bwd_reduction(fd : FusionDefinition) -> None :
${full('T0', dtype)}${full('T1', dtype)}${column('T2', dtype)}${float('T3', 'T0')}${float('T4', 'T1')}    T5 = fd.ops.add(T3, fd.ops.broadcast_in_dim(fd.ops.cast(T2, dtype=DataType.Float), shape=T0.shape(), broadcast_dims=[1]))
    S6 = fd.define_scalar(0.797884560802865406, dtype=DataType.Double)
    S7 = fd.define_scalar(0.0447150000000000000, dtype=DataType.Double)
    S8 = fd.define_scalar(1.00000, dtype=DataType.Double)
    S9 = fd.define_scalar(0.500000, dtype=DataType.Double)
    S10 = fd.define_scalar(0.134145000000000000, dtype=DataType.Double)
    T11 = fd.ops.mul(T5, T5)
    T12 = fd.ops.tanh(fd.ops.mul(fd.ops.mul(T5, S6), fd.ops.add(S8, fd.ops.mul(T11, S7))))
    T13 = fd.ops.mul(fd.ops.sub(S8, fd.ops.mul(T12, T12)), fd.ops.mul(S6, fd.ops.add(S8, fd.ops.mul(T11, S10))))
    T14 = fd.ops.add(fd.ops.mul(fd.ops.add(T12, S8), S9), fd.ops.mul(fd.ops.mul(T5, S9), T13))
    T15 = fd.ops.sum(fd.ops.mul(T4, T14), dims=[${axis}], keepdim=False, dtype=DataType.Null)
    fd.add_output(fd.ops.cast(T15, dtype=DataType.${dtype}))
`;
}

/** nvFuser's inner broadcast add: x + b[:, None], b one value per row. Inputs (nvFuser's order): b [rows], x. */
export function broadcastAddInnerDef(dtype: string): string {
  return `def broadcast_add_inner(fd : FusionDefinition) -> None :
${column('T0', dtype)}${full('T1', dtype)}    T2 = fd.ops.broadcast_in_dim(T0, shape=T1.shape(), broadcast_dims=[0])
    T3 = fd.ops.add(fd.ops.cast(T1, dtype=DataType.Float), fd.ops.cast(T2, dtype=DataType.Float))
    fd.add_output(fd.ops.cast(T3, dtype=DataType.${dtype}))
`;
}

/**
 * nvFuser's rmsnorm_add (the fused add + RMSNorm of LLM inference): h = x + residual,
 * y = w · h · rsqrt(mean(h²) + 1e-5). Inputs: x, weight, residual. Outputs: y, h (the new residual).
 */
export function rmsNormAddDef(dtype: string): string {
  return `def rms_norm_add(fd : FusionDefinition) -> None :
${full('T0', dtype)}${column('T1', dtype)}${full('T2', dtype)}    T3 = fd.ops.add(fd.ops.cast(T0, dtype=DataType.Float), fd.ops.cast(T2, dtype=DataType.Float))
    T4 = fd.ops.sum(fd.ops.mul(T3, T3), dims=[1], keepdim=False, dtype=DataType.Null)
    S5 = fd.ops.size(T0, dim=1)
    S6 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T7 = fd.ops.rsqrt(fd.ops.add(fd.ops.truediv(T4, S5), S6))
    T8 = fd.ops.mul(T3, fd.ops.broadcast_in_dim(T7, shape=T0.shape(), broadcast_dims=[0]))
    T9 = fd.ops.cast(fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    fd.add_output(fd.ops.cast(fd.ops.mul(T9, T8), dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(T3, dtype=DataType.${dtype}))
`;
}

/**
 * The loss of nvFuser's test_cross_entropy_loss without its lm_head matmul: F.cross_entropy of
 * fp32 logits, mean over rows, as HF's causal-LM loss takes it (logits [rows, vocab] = [rows,
 * hidden], labels Int [rows], no ignore_index). Σ_r (logsumexp(x_r) − x_r[label_r]) / rows, the
 * logsumexp shifted by the row max. Output: the loss, a Float scalar.
 */
export function crossEntropyDef(dtype: string): string {
  return `def cross_entropy(fd : FusionDefinition) -> None :
${full('T0', dtype)}${column('T1', 'Int')}${float('T2', 'T0')}    T3 = fd.ops.max(T2, dims=[1], keepdim=False, dtype=DataType.Null)
    T4 = fd.ops.broadcast_in_dim(T3, shape=T0.shape(), broadcast_dims=[0])
    T5 = fd.ops.sum(fd.ops.exp(fd.ops.sub(T2, T4)), dims=[1], keepdim=False, dtype=DataType.Null)
    T6 = fd.ops.add(fd.ops.log(T5), T3)
    T7 = fd.ops.broadcast_in_dim(T1, shape=[T0.size(0), 1], broadcast_dims=[0])
    T8 = fd.ops.take_along_axis(T2, T7, dim=1)
    T9 = fd.ops.squeeze(T8, dims=[1])
    T10 = fd.ops.sum(fd.ops.sub(T6, T9), dims=[0], keepdim=False, dtype=DataType.Null)
    S11 = fd.ops.size(T0, dim=0)
    fd.add_output(fd.ops.truediv(T10, S11))
`;
}
