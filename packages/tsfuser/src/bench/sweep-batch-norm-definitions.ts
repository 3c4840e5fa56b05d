// Sweep families of nvFuser's benchmarks/python test_batchnorm_{fwd,bwd},
// test_instancenorm_{fwd,bwd} and test_groupnorm_fwd. Batch norm in its channels-last form, as a sweep point's 2-D tensor: x is [N·H·W, C] = [rows, hidden] (a channels-last NHWC
// tensor's memory, statistics per column), training mode, fp32 math. The column reduction is the
// outer (persistent) reduction class the row families never exercise. nvFuser's running-mean /
// running-var inputs feed no output of its fusions, so they are left out (no bytes either way).
// tools/bench/sweep_pytorch.py times aten.native_batch_norm and its backward on the same [rows, C].
// Instance norm channels-first on a 3-D view of the point: [rows / 16, 16, hidden] = [N, C, H·W]
// (SWEEP_INSTANCE_NORM_CHANNELS), statistics per (n, c) over H·W; PyTorch times
// aten.native_batch_norm on the [1, N·C, H·W] view (what F.instance_norm runs) and its backward.
// group_norm (test_groupnorm_fwd) on [rows / 64, 32, 2, hidden] = [N, G, C/G, H·W]; PyTorch times
// F.group_norm on [N, 64, H·W]; its backward (nvFuser has no benchmark of it; the issue asks for
// one) as instance_norm's with statistics per (n, g), PyTorch aten.native_group_norm_backward.
//
// Backward algebra (this file's, not nvFuser's autograd graph): x̂ = (x − mean)·invstd,
// db = Σ_rows dy, dw = Σ_rows dy·x̂, dx = w·invstd·(dy − db/N − x̂·dw/N), N = rows.

import { GROUP_NORM_CHANNELS, INSTANCE_NORM_CHANNELS } from './sweep-points.js';

const full = (t: string, dtype: string): string => `    ${t} = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)\n`;
const column = (t: string, dtype: string): string => `    ${t} = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.${dtype}, is_cpu=False)\n`;

/** Training batch_norm, eps 1e-5. Inputs: x, weight, bias. Outputs: y, mean, invstd (f32 [C]). */
export function batchNormDef(dtype: string): string {
  return `def batch_norm(fd : FusionDefinition) -> None :
${full('T0', dtype)}${column('T1', dtype)}${column('T2', dtype)}    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4, T5 = fd.ops.var_mean(T3, dims=[0], correction=0, keepdim=False)
    S6 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T7 = fd.ops.rsqrt(fd.ops.add(T4, S6))
    T8 = fd.ops.sub(T3, fd.ops.broadcast_in_dim(T5, shape=T0.shape(), broadcast_dims=[1]))
    T9 = fd.ops.mul(T8, fd.ops.broadcast_in_dim(T7, shape=T0.shape(), broadcast_dims=[1]))
    T10 = fd.ops.cast(fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    T11 = fd.ops.cast(fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    fd.add_output(fd.ops.cast(fd.ops.add(fd.ops.mul(T9, T10), T11), dtype=DataType.${dtype}))
    fd.add_output(T5)
    fd.add_output(T7)
`;
}

/**
 * Training batch_norm backward. Inputs (nvFuser's order less the running stats): x, grad_out,
 * weight, mean, invstd (f32 [C]). Outputs: grad_input, grad_weight, grad_bias.
 */
export function batchNormBackwardDef(dtype: string): string {
  return `def batch_norm_bwd(fd : FusionDefinition) -> None :
${full('T0', dtype)}${full('T1', dtype)}${column('T2', dtype)}${column('T3', 'Float')}${column('T4', 'Float')}    T5 = fd.ops.cast(T0, dtype=DataType.Float)
    T6 = fd.ops.cast(T1, dtype=DataType.Float)
    T7 = fd.ops.broadcast_in_dim(T4, shape=T0.shape(), broadcast_dims=[1])
    T8 = fd.ops.mul(fd.ops.sub(T5, fd.ops.broadcast_in_dim(T3, shape=T0.shape(), broadcast_dims=[1])), T7)
    T9 = fd.ops.sum(T6, dims=[0], keepdim=False, dtype=DataType.Null)
    T10 = fd.ops.sum(fd.ops.mul(T6, T8), dims=[0], keepdim=False, dtype=DataType.Null)
    S11 = fd.ops.size(T0, dim=0)
    T12 = fd.ops.broadcast_in_dim(fd.ops.truediv(T9, S11), shape=T0.shape(), broadcast_dims=[1])
    T13 = fd.ops.broadcast_in_dim(fd.ops.truediv(T10, S11), shape=T0.shape(), broadcast_dims=[1])
    T14 = fd.ops.sub(fd.ops.sub(T6, T12), fd.ops.mul(T8, T13))
    T15 = fd.ops.mul(fd.ops.broadcast_in_dim(fd.ops.cast(T2, dtype=DataType.Float), shape=T0.shape(), broadcast_dims=[1]), T7)
    fd.add_output(fd.ops.cast(fd.ops.mul(T14, T15), dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(T10, dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(T9, dtype=DataType.${dtype}))
`;
}

/**
 * Channels of the instance_norm families' 3-D view: a point's rows are N·C with C = 16, its
 * hidden the spatial size H·W, so x is [rows / 16, 16, hidden] (channels-first NCHW memory).
 */
export const SWEEP_INSTANCE_NORM_CHANNELS = INSTANCE_NORM_CHANNELS;

const full3 = (t: string, dtype: string): string => `    ${t} = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.${dtype}, is_cpu=False)\n`;
const nc = (t: string): string => `    ${t} = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)\n`;

/**
 * Training instance_norm of x [N, C, S], eps 1e-5: statistics per (n, c) over S, weight and bias
 * per channel. Inputs: x, weight, bias. Outputs: y, mean, invstd (f32 [N, C]).
 */
export function instanceNormDef(dtype: string): string {
  return `def instance_norm(fd : FusionDefinition) -> None :
${full3('T0', dtype)}${column('T1', dtype)}${column('T2', dtype)}    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4, T5 = fd.ops.var_mean(T3, dims=[2], correction=0, keepdim=False)
    S6 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T7 = fd.ops.rsqrt(fd.ops.add(T4, S6))
    T8 = fd.ops.sub(T3, fd.ops.broadcast_in_dim(T5, shape=T0.shape(), broadcast_dims=[0, 1]))
    T9 = fd.ops.mul(T8, fd.ops.broadcast_in_dim(T7, shape=T0.shape(), broadcast_dims=[0, 1]))
    T10 = fd.ops.cast(fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    T11 = fd.ops.cast(fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    fd.add_output(fd.ops.cast(fd.ops.add(fd.ops.mul(T9, T10), T11), dtype=DataType.${dtype}))
    fd.add_output(T5)
    fd.add_output(T7)
`;
}

/**
 * Training instance_norm backward: with x̂ = (x − mean)·invstd and g = dy·w per (n, c) over S,
 * dx = invstd·(g − mean_S(g) − x̂·mean_S(g·x̂)), dw = Σ_{n,S} dy·x̂, db = Σ_{n,S} dy.
 * Inputs: x, grad_out, weight, mean, invstd (f32 [N, C]). Outputs: grad_input, grad_weight, grad_bias.
 */
export function instanceNormBackwardDef(dtype: string): string {
  return `def instance_norm_bwd(fd : FusionDefinition) -> None :
${full3('T0', dtype)}${full3('T1', dtype)}${column('T2', dtype)}${nc('T3')}${nc('T4')}    T5 = fd.ops.cast(T0, dtype=DataType.Float)
    T6 = fd.ops.cast(T1, dtype=DataType.Float)
    T7 = fd.ops.broadcast_in_dim(T4, shape=T0.shape(), broadcast_dims=[0, 1])
    T8 = fd.ops.mul(fd.ops.sub(T5, fd.ops.broadcast_in_dim(T3, shape=T0.shape(), broadcast_dims=[0, 1])), T7)
    T9 = fd.ops.mul(T6, fd.ops.broadcast_in_dim(fd.ops.cast(T2, dtype=DataType.Float), shape=T0.shape(), broadcast_dims=[1]))
    S10 = fd.ops.size(T0, dim=2)
    T11 = fd.ops.broadcast_in_dim(fd.ops.truediv(fd.ops.sum(T9, dims=[2], keepdim=False, dtype=DataType.Null), S10), shape=T0.shape(), broadcast_dims=[0, 1])
    T12 = fd.ops.broadcast_in_dim(fd.ops.truediv(fd.ops.sum(fd.ops.mul(T9, T8), dims=[2], keepdim=False, dtype=DataType.Null), S10), shape=T0.shape(), broadcast_dims=[0, 1])
    T13 = fd.ops.mul(fd.ops.sub(fd.ops.sub(T9, T11), fd.ops.mul(T8, T12)), T7)
    fd.add_output(fd.ops.cast(T13, dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(fd.ops.sum(fd.ops.mul(T6, T8), dims=[0, 2], keepdim=False, dtype=DataType.Null), dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(fd.ops.sum(T6, dims=[0, 2], keepdim=False, dtype=DataType.Null), dtype=DataType.${dtype}))
`;
}

/**
 * The group_norm family's view of a point: rows = N·C with C = 64 channels in 32 groups (nvFuser's
 * get_n_groups(64)), hidden = H·W, so x is [rows / 64, 32, 2, hidden] = [N, G, C/G, H·W].
 */
export const SWEEP_GROUP_NORM_CHANNELS = GROUP_NORM_CHANNELS;
export const SWEEP_GROUP_NORM_GROUPS = 32;

/**
 * group_norm of x [N, G, C/G, S], eps 1e-5: statistics per (n, g) over C/G and S, weight and bias
 * per channel, given as their [G, C/G] views. Inputs: x, weight, bias. Output: y (nvFuser's only output).
 */
export function groupNormDef(dtype: string): string {
  const gc = (t: string): string => `    ${t} = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)\n`;
  return `def group_norm(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.${dtype}, is_cpu=False)
${gc('T1')}${gc('T2')}    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4, T5 = fd.ops.var_mean(T3, dims=[2, 3], correction=0, keepdim=False)
    S6 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T7 = fd.ops.rsqrt(fd.ops.add(T4, S6))
    T8 = fd.ops.sub(T3, fd.ops.broadcast_in_dim(T5, shape=T0.shape(), broadcast_dims=[0, 1]))
    T9 = fd.ops.mul(T8, fd.ops.broadcast_in_dim(T7, shape=T0.shape(), broadcast_dims=[0, 1]))
    T10 = fd.ops.cast(fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1, 2]), dtype=DataType.Float)
    T11 = fd.ops.cast(fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[1, 2]), dtype=DataType.Float)
    fd.add_output(fd.ops.cast(fd.ops.add(fd.ops.mul(T9, T10), T11), dtype=DataType.${dtype}))
`;
}

/**
 * group_norm backward on x [N, G, C/G, S]: with x̂ = (x − mean)·invstd and g = dy·w per (n, g)
 * over C/G and S, dx = invstd·(g − mean(g) − x̂·mean(g·x̂)), dw = Σ_{n,S} dy·x̂, db = Σ_{n,S} dy
 * ([G, C/G] views). Inputs: x, grad_out, weight [G, C/G], mean, invstd (f32 [N, G]). Outputs:
 * grad_input, grad_weight, grad_bias.
 */
export function groupNormBackwardDef(dtype: string): string {
  const x4 = (t: string): string => `    ${t} = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.${dtype}, is_cpu=False)\n`;
  const gc = `    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)\n`;
  return `def group_norm_bwd(fd : FusionDefinition) -> None :
${x4('T0')}${x4('T1')}${gc}${nc('T3')}${nc('T4')}    T5 = fd.ops.cast(T0, dtype=DataType.Float)
    T6 = fd.ops.cast(T1, dtype=DataType.Float)
    T7 = fd.ops.broadcast_in_dim(T4, shape=T0.shape(), broadcast_dims=[0, 1])
    T8 = fd.ops.mul(fd.ops.sub(T5, fd.ops.broadcast_in_dim(T3, shape=T0.shape(), broadcast_dims=[0, 1])), T7)
    T9 = fd.ops.mul(T6, fd.ops.broadcast_in_dim(fd.ops.cast(T2, dtype=DataType.Float), shape=T0.shape(), broadcast_dims=[1, 2]))
    S10 = fd.ops.mul(fd.ops.size(T0, dim=2), fd.ops.size(T0, dim=3))
    T11 = fd.ops.broadcast_in_dim(fd.ops.truediv(fd.ops.sum(T9, dims=[2, 3], keepdim=False, dtype=DataType.Null), S10), shape=T0.shape(), broadcast_dims=[0, 1])
    T12 = fd.ops.broadcast_in_dim(fd.ops.truediv(fd.ops.sum(fd.ops.mul(T9, T8), dims=[2, 3], keepdim=False, dtype=DataType.Null), S10), shape=T0.shape(), broadcast_dims=[0, 1])
    T13 = fd.ops.mul(fd.ops.sub(fd.ops.sub(T9, T11), fd.ops.mul(T8, T12)), T7)
    fd.add_output(fd.ops.cast(T13, dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(fd.ops.sum(fd.ops.mul(T6, T8), dims=[0, 3], keepdim=False, dtype=DataType.Null), dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(fd.ops.sum(T6, dims=[0, 3], keepdim=False, dtype=DataType.Null), dtype=DataType.${dtype}))
`;
}
