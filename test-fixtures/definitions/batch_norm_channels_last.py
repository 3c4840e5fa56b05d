# Batch norm training forward over N, H, W per channel on a channels-last input (logical
# [N, H, W, C], bf16 in/out with fp32 math), written the way nvFuser's python_definition dump
# shows a decomposed batch norm (var_mean over the outer dims + broadcast_in_dim + rsqrt, weight
# and bias per channel). Outputs: y (bf16), mean and invstd (fp32, [C]). Every reduced dim is
# outer (C stays innermost): nvFuser's outer persistent pattern, one outer_persistent kernel
# while a column of N·H·W elements fits in registers.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id6(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4, T5 = fd.ops.var_mean(T3, dims=[0, 1, 2], correction=0, keepdim=False)
    S6 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T7 = fd.ops.add(T4, S6)
    T8 = fd.ops.rsqrt(T7)
    V9 = T0.shape()
    T10 = fd.ops.broadcast_in_dim(T5, shape=V9, broadcast_dims=[3])
    T11 = fd.ops.sub(T3, T10)
    T12 = fd.ops.broadcast_in_dim(T8, shape=V9, broadcast_dims=[3])
    T13 = fd.ops.mul(T11, T12)
    T14 = fd.ops.broadcast_in_dim(T1, shape=V9, broadcast_dims=[3])
    T15 = fd.ops.cast(T14, dtype=DataType.Float)
    T16 = fd.ops.mul(T13, T15)
    T17 = fd.ops.broadcast_in_dim(T2, shape=V9, broadcast_dims=[3])
    T18 = fd.ops.cast(T17, dtype=DataType.Float)
    T19 = fd.ops.add(T16, T18)
    T20 = fd.ops.cast(T19, dtype=DataType.BFloat16)
    fd.add_output(T20)
    fd.add_output(T5)
    fd.add_output(T8)

inputs = [
    torch.randn((8, 16, 16, 64), dtype=torch.bfloat16, device='cuda:0'),
    torch.randn((64,), dtype=torch.bfloat16, device='cuda:0'),
    torch.randn((64,), dtype=torch.bfloat16, device='cuda:0'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id6(fd)

out = fd.execute(inputs)
