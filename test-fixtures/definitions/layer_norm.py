# Layer norm forward over the last dim, bf16 in/out with fp32 math, written the way nvFuser's
# python_definition dump shows a decomposed layer norm (var_mean + broadcast_in_dim + rsqrt).
# Outputs: y (bf16), mean and rstd (fp32, [N, 1]).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id1(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4, T5 = fd.ops.var_mean(T3, dims=[1], correction=0, keepdim=False)
    S6 = fd.ops.size(T0, dim=0)
    S7 = fd.define_scalar(1, dtype=DataType.Int)
    V8 = fd.define_vector([S6, S7], dtype=DataType.Int)
    T9 = fd.ops.broadcast_in_dim(T4, shape=V8, broadcast_dims=[0])
    T10 = fd.ops.broadcast_in_dim(T5, shape=V8, broadcast_dims=[0])
    S11 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T12 = fd.ops.add(T9, S11)
    T13 = fd.ops.rsqrt(T12)
    V14 = T0.shape()
    T15 = fd.ops.broadcast_in_dim(T10, shape=V14, broadcast_dims=[0, 1])
    T16 = fd.ops.sub(T3, T15)
    T17 = fd.ops.broadcast_in_dim(T13, shape=V14, broadcast_dims=[0, 1])
    T18 = fd.ops.mul(T16, T17)
    T19 = fd.ops.broadcast_in_dim(T1, shape=V14, broadcast_dims=[1])
    T20 = fd.ops.cast(T19, dtype=DataType.Float)
    T21 = fd.ops.mul(T18, T20)
    T22 = fd.ops.broadcast_in_dim(T2, shape=V14, broadcast_dims=[1])
    T23 = fd.ops.cast(T22, dtype=DataType.Float)
    T24 = fd.ops.add(T21, T23)
    T25 = fd.ops.cast(T24, dtype=DataType.BFloat16)
    fd.add_output(T25)
    fd.add_output(T10)
    fd.add_output(T13)

inputs = [
    torch.randn((8, 64), dtype=torch.bfloat16, device='cuda:0'),
    torch.randn((64,), dtype=torch.bfloat16, device='cuda:0'),
    torch.randn((64,), dtype=torch.bfloat16, device='cuda:0'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id1(fd)

out = fd.execute(inputs)
