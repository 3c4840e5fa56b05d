// More sweep families, in nvFuser's python_definition form (fp32 math, only the family's PyTorch
// outputs leave the fusion): backward passes of softmax, rms_norm and gelu, scale·bias·relu, and
// a reduction with an epilogue — nvFuser's benchmark families beside the ones in
// sweep-definitions.ts. tools/bench/sweep_pytorch.py times the same math on the PyTorch side
// (aten's own backward ops where PyTorch has them).

const full = (t: string, dtype: string): string => `    ${t} = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)\n`;
const column = (t: string, dtype: string): string => `    ${t} = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.${dtype}, is_cpu=False)\n`;

/** aten._softmax_backward_data(dy, y, -1): dx = y · (dy − Σ dy·y). Inputs: grad_output, output. */
export function softmaxBackwardDef(dtype: string): string {
  return `def softmax_bwd(fd : FusionDefinition) -> None :
${full('T0', dtype)}${full('T1', dtype)}    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    T4 = fd.ops.sum(fd.ops.mul(T2, T3), dims=[1], keepdim=False, dtype=DataType.Null)
    T5 = fd.ops.broadcast_in_dim(T4, shape=T0.shape(), broadcast_dims=[0])
    T6 = fd.ops.mul(T3, fd.ops.sub(T2, T5))
    fd.add_output(fd.ops.cast(T6, dtype=DataType.${dtype}))
`;
}

/**
 * rms_norm backward (grad_input, grad_weight) of y = x·rstd·w: with x̂ = x·rstd and g = dy·w,
 * dx = rstd · (g − x̂ · mean(g·x̂)), dw = Σ_rows dy·x̂. Inputs: grad_out, x, rstd (f32), weight.
 */
export function rmsNormBackwardDef(dtype: string, hidden: number): string {
  return `def rms_norm_bwd(fd : FusionDefinition) -> None :
${full('T0', dtype)}${full('T1', dtype)}${column('T2', 'Float')}${column('T3', dtype)}    T4 = fd.ops.cast(T0, dtype=DataType.Float)
    T5 = fd.ops.cast(T1, dtype=DataType.Float)
    T6 = fd.ops.cast(T3, dtype=DataType.Float)
    T7 = fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[0])
    T8 = fd.ops.mul(T5, T7)
    T9 = fd.ops.broadcast_in_dim(T6, shape=T0.shape(), broadcast_dims=[1])
    T10 = fd.ops.mul(T4, T9)
    T11 = fd.ops.sum(fd.ops.mul(T10, T8), dims=[1], keepdim=False, dtype=DataType.Null)
    S12 = fd.define_scalar(${1 / hidden}, dtype=DataType.Double)
    T13 = fd.ops.broadcast_in_dim(fd.ops.mul(T11, S12), shape=T0.shape(), broadcast_dims=[0])
    T14 = fd.ops.sub(T10, fd.ops.mul(T8, T13))
    fd.add_output(fd.ops.cast(fd.ops.mul(T14, T7), dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(fd.ops.sum(fd.ops.mul(T4, T8), dims=[0], keepdim=False, dtype=DataType.Null), dtype=DataType.${dtype}))
`;
}

/** aten.gelu_backward(dy, x) (erf): dx = dy · (Φ(x) + x·φ(x)). Inputs: grad_out, x. */
export function geluBackwardDef(dtype: string): string {
  return `def gelu_bwd(fd : FusionDefinition) -> None :
${full('T0', dtype)}${full('T1', dtype)}    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    S4 = fd.define_scalar(0.707106781186547524, dtype=DataType.Double)
    S5 = fd.define_scalar(1.00000, dtype=DataType.Double)
    S6 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T7 = fd.ops.mul(fd.ops.add(fd.ops.erf(fd.ops.mul(T3, S4)), S5), S6)
    S8 = fd.define_scalar(-0.500000, dtype=DataType.Double)
    T9 = fd.ops.exp(fd.ops.mul(fd.ops.mul(T3, T3), S8))
    S10 = fd.define_scalar(0.398942280401432678, dtype=DataType.Double)
    T11 = fd.ops.mul(fd.ops.mul(T3, T9), S10)
    T12 = fd.ops.mul(T2, fd.ops.add(T7, T11))
    fd.add_output(fd.ops.cast(T12, dtype=DataType.${dtype}))
`;
}

/** nvFuser's scale·bias·relu: relu(x · scale + bias), scale and bias per column. */
export function scaleBiasReluDef(dtype: string): string {
  return `def scale_bias_relu(fd : FusionDefinition) -> None :
${full('T0', dtype)}${column('T1', dtype)}${column('T2', dtype)}    T3 = fd.ops.cast(fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    T4 = fd.ops.cast(fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    T5 = fd.ops.add(fd.ops.mul(fd.ops.cast(T0, dtype=DataType.Float), T3), T4)
    fd.add_output(fd.ops.cast(fd.ops.relu(T5), dtype=DataType.${dtype}))
`;
}

/** nvFuser's reduction with an epilogue: Σ_row x + e, e one value per row. */
export function reductionEpilogueDef(dtype: string): string {
  return `def reduction_epilogue(fd : FusionDefinition) -> None :
${full('T0', dtype)}${column('T1', dtype)}    T2 = fd.ops.sum(fd.ops.cast(T0, dtype=DataType.Float), dims=[1], keepdim=False, dtype=DataType.Null)
    T3 = fd.ops.add(T2, fd.ops.cast(T1, dtype=DataType.Float))
    fd.add_output(fd.ops.cast(T3, dtype=DataType.${dtype}))
`;
}

/**
 * nvFuser's reduction_axis = 0 forms of test_reduction, test_softmax_fwd and test_softmax_bwd
 * (statistics per column of [rows, hidden], the outer reduction and outer persistent kernels):
 * Σ over rows, softmax over rows, and its backward dx = y · (dy − Σ_rows dy·y).
 */
export function columnSumDef(dtype: string): string {
  return `def col_sum(fd : FusionDefinition) -> None :
${full('T0', dtype)}    T1 = fd.ops.sum(fd.ops.cast(T0, dtype=DataType.Float), dims=[0], keepdim=False, dtype=DataType.Null)
    fd.add_output(fd.ops.cast(T1, dtype=DataType.${dtype}))
`;
}

export function softmaxOuterDef(dtype: string): string {
  return `def softmax_outer(fd : FusionDefinition) -> None :
${full('T0', dtype)}    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.max(T1, dims=[0], keepdim=False, dtype=DataType.Null)
    T4 = fd.ops.exp(fd.ops.sub(T1, fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[1])))
    T5 = fd.ops.sum(T4, dims=[0], keepdim=False, dtype=DataType.Null)
    T7 = fd.ops.mul(T4, fd.ops.reciprocal(fd.ops.broadcast_in_dim(T5, shape=T0.shape(), broadcast_dims=[1])))
    fd.add_output(fd.ops.cast(T7, dtype=DataType.${dtype}))
`;
}

/** aten._softmax_backward_data(dy, y, 0). Inputs: grad_output, output. */
export function softmaxBackwardOuterDef(dtype: string): string {
  return `def softmax_bwd_outer(fd : FusionDefinition) -> None :
${full('T0', dtype)}${full('T1', dtype)}    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    T4 = fd.ops.sum(fd.ops.mul(T2, T3), dims=[0], keepdim=False, dtype=DataType.Null)
    T6 = fd.ops.mul(T3, fd.ops.sub(T2, fd.ops.broadcast_in_dim(T4, shape=T0.shape(), broadcast_dims=[1])))
    fd.add_output(fd.ops.cast(T6, dtype=DataType.${dtype}))
`;
}
