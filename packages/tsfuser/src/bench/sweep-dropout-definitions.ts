// Sweep families of nvFuser's benchmarks/python test_dropout_{layernorm,rmsnorm}_{fwd,bwd}: a
// normalization of input2 + dropout(input1, p = 0.2), forward and backward, in python_definition
// form (fp32 math). The forward draws its keep mask in the kernel (rand_like with a seed and an
// offset given as Int scalars, Philox as nvFuser and the reference evaluator draw it) and returns
// it, as nvFuser's does, with the per-row statistics the backward takes; the backward takes that
// mask (Bool) and those statistics. Statistics are [rows] (nvFuser's invstd / rms are [rows, 1]:
// the same bytes). tools/bench/sweep_pytorch.py times the same outputs on the PyTorch side.
//
// The definitions are this file's own algebra of the same functions (not nvFuser's op-by-op
// autograd graphs): with z = input2 + input1·mask/(1 − p) and x̂ the normalized z,
//   layer_norm: dz = invstd · (g − mean(g) − x̂ · mean(g·x̂)), g = dy·w, dw = Σ dy·x̂, db = Σ dy;
//   rms_norm:   dz = (g − x̂ · mean(g·x̂)) / rms,              g = dy·w, dw = Σ dy·x̂;
// grad_input2 = dz, grad_input1 = dz · mask/(1 − p).

/** nvFuser's dropout probability in these benchmarks. */
export const SWEEP_DROPOUT_P = 0.2;
/** The Philox seed and offset the sweep passes to the forward families. */
export const SWEEP_DROPOUT_SEED = 20261124;
export const SWEEP_DROPOUT_OFFSET = 4;

const full = (t: string, dtype: string): string => `    ${t} = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)\n`;
const column = (t: string, dtype: string): string => `    ${t} = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.${dtype}, is_cpu=False)\n`;
const seedOffset = `    S90 = fd.define_scalar(None, dtype=DataType.Int)
    S91 = fd.define_scalar(None, dtype=DataType.Int)
`;

/** The keep mask (B10, Bool) and z = input2 + input1 · mask / (1 − p) (Z16, Float) from T0 (input1), T1 (input2). */
function dropoutAdd(maskFromRng: boolean): string {
  const mask = maskFromRng
    ? `    T8 = fd.ops.rand_like(fd.ops.cast(T0, dtype=DataType.Float), rng_seed=S90, rng_offset=S91)
    S9 = fd.define_scalar(${1 - SWEEP_DROPOUT_P}, dtype=DataType.Double)
    B10 = fd.ops.lt(T8, S9)
`
    : '';
  return `${mask}    T11 = fd.ops.mul(fd.ops.cast(T0, dtype=DataType.Float), fd.ops.cast(B10, dtype=DataType.Float))
    S12 = fd.define_scalar(${1 / (1 - SWEEP_DROPOUT_P)}, dtype=DataType.Double)
    T13 = fd.ops.mul(T11, S12)
    Z16 = fd.ops.add(fd.ops.cast(T1, dtype=DataType.Float), T13)
`;
}

/**
 * layer_norm(input2 + dropout(input1)) · w + b, eps 1e-5. Inputs: input1, input2, weight, bias,
 * seed, offset. Outputs: y, mean (f32 [rows]), invstd (f32 [rows]), keep mask (Bool).
 */
export function dropoutLayerNormDef(dtype: string): string {
  return `def dropout_layer_norm(fd : FusionDefinition) -> None :
${full('T0', dtype)}${full('T1', dtype)}${column('T2', dtype)}${column('T3', dtype)}${seedOffset}${dropoutAdd(true)}    V17, M18 = fd.ops.var_mean(Z16, dims=[1], correction=0, keepdim=False)
    S19 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    R20 = fd.ops.rsqrt(fd.ops.add(V17, S19))
    T21 = fd.ops.sub(Z16, fd.ops.broadcast_in_dim(M18, shape=T0.shape(), broadcast_dims=[0]))
    T22 = fd.ops.mul(T21, fd.ops.broadcast_in_dim(R20, shape=T0.shape(), broadcast_dims=[0]))
    T23 = fd.ops.cast(fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    T24 = fd.ops.cast(fd.ops.broadcast_in_dim(T3, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    T25 = fd.ops.add(fd.ops.mul(T22, T23), T24)
    fd.add_output(fd.ops.cast(T25, dtype=DataType.${dtype}))
    fd.add_output(M18)
    fd.add_output(R20)
    fd.add_output(B10)
`;
}

/**
 * Backward of dropout_layer_norm. Inputs (nvFuser's order): keep mask (Bool), mean, invstd (f32
 * [rows]), grad_out, weight, input1, input2. Outputs: grad_input1, grad_input2, grad_weight, grad_bias.
 */
export function dropoutLayerNormBackwardDef(dtype: string): string {
  return `def dropout_layer_norm_bwd(fd : FusionDefinition) -> None :
${full('B10', 'Bool')}${column('T2', 'Float')}${column('T3', 'Float')}${full('T4', dtype)}${column('T5', dtype)}${full('T0', dtype)}${full('T1', dtype)}${dropoutAdd(false)}    T30 = fd.ops.broadcast_in_dim(T3, shape=T0.shape(), broadcast_dims=[0])
    T31 = fd.ops.mul(fd.ops.sub(Z16, fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[0])), T30)
    T32 = fd.ops.cast(T4, dtype=DataType.Float)
    T33 = fd.ops.mul(T32, fd.ops.broadcast_in_dim(fd.ops.cast(T5, dtype=DataType.Float), shape=T0.shape(), broadcast_dims=[1]))
    S34 = fd.ops.size(T0, dim=1)
    T35 = fd.ops.truediv(fd.ops.sum(T33, dims=[1], keepdim=False, dtype=DataType.Null), S34)
    T36 = fd.ops.truediv(fd.ops.sum(fd.ops.mul(T33, T31), dims=[1], keepdim=False, dtype=DataType.Null), S34)
    T37 = fd.ops.sub(T33, fd.ops.broadcast_in_dim(T35, shape=T0.shape(), broadcast_dims=[0]))
    T38 = fd.ops.sub(T37, fd.ops.mul(T31, fd.ops.broadcast_in_dim(T36, shape=T0.shape(), broadcast_dims=[0])))
    T39 = fd.ops.mul(T38, T30)
    T40 = fd.ops.mul(fd.ops.mul(T39, fd.ops.cast(B10, dtype=DataType.Float)), S12)
    fd.add_output(fd.ops.cast(T40, dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(T39, dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(fd.ops.sum(fd.ops.mul(T32, T31), dims=[0], keepdim=False, dtype=DataType.Null), dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(fd.ops.sum(T32, dims=[0], keepdim=False, dtype=DataType.Null), dtype=DataType.${dtype}))
`;
}

/**
 * w · z / sqrt(mean(z²) + eps), z = input2 + dropout(input1), eps 1e-5. Inputs: input1, input2,
 * weight, seed, offset. Outputs: y, keep mask (Bool), rms = sqrt(mean(z²) + eps) (f32 [rows]).
 */
export function dropoutRmsNormDef(dtype: string): string {
  return `def dropout_rms_norm(fd : FusionDefinition) -> None :
${full('T0', dtype)}${full('T1', dtype)}${column('T2', dtype)}${seedOffset}${dropoutAdd(true)}    T17 = fd.ops.sum(fd.ops.mul(Z16, Z16), dims=[1], keepdim=False, dtype=DataType.Null)
    S18 = fd.ops.size(T0, dim=1)
    S19 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    R20 = fd.ops.sqrt(fd.ops.add(fd.ops.truediv(T17, S18), S19))
    T21 = fd.ops.truediv(Z16, fd.ops.broadcast_in_dim(R20, shape=T0.shape(), broadcast_dims=[0]))
    T22 = fd.ops.cast(fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    fd.add_output(fd.ops.cast(fd.ops.mul(T22, T21), dtype=DataType.${dtype}))
    fd.add_output(B10)
    fd.add_output(R20)
`;
}

/**
 * Backward of dropout_rms_norm. Inputs (nvFuser's order): input1, input2, keep mask (Bool), rms
 * (f32 [rows]), grad_out, weight. Outputs: grad_input1, grad_input2, grad_weight.
 */
export function dropoutRmsNormBackwardDef(dtype: string): string {
  return `def dropout_rms_norm_bwd(fd : FusionDefinition) -> None :
${full('T0', dtype)}${full('T1', dtype)}${full('B10', 'Bool')}${column('T2', 'Float')}${full('T4', dtype)}${column('T5', dtype)}${dropoutAdd(false)}    T30 = fd.ops.reciprocal(fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[0]))
    T31 = fd.ops.mul(Z16, T30)
    T32 = fd.ops.cast(T4, dtype=DataType.Float)
    T33 = fd.ops.mul(T32, fd.ops.broadcast_in_dim(fd.ops.cast(T5, dtype=DataType.Float), shape=T0.shape(), broadcast_dims=[1]))
    S34 = fd.ops.size(T0, dim=1)
    T36 = fd.ops.truediv(fd.ops.sum(fd.ops.mul(T33, T31), dims=[1], keepdim=False, dtype=DataType.Null), S34)
    T38 = fd.ops.sub(T33, fd.ops.mul(T31, fd.ops.broadcast_in_dim(T36, shape=T0.shape(), broadcast_dims=[0])))
    T39 = fd.ops.mul(T38, T30)
    T40 = fd.ops.mul(fd.ops.mul(T39, fd.ops.cast(B10, dtype=DataType.Float)), S12)
    fd.add_output(fd.ops.cast(T40, dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(T39, dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(fd.ops.sum(fd.ops.mul(T32, T31), dims=[0], keepdim=False, dtype=DataType.Null), dtype=DataType.${dtype}))
`;
}
