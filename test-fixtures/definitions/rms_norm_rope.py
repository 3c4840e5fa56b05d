# RMS norm over the head dim followed by RoPE's rotate-half of the normalized row (Llama-style
# q/k norm then rotary embedding), bf16 in/out with fp32 math, written as nvFuser's
# python_definition dump shows a decomposed one: from x [N, D] (N = batch·seq·heads), weight [D]
# and cos / sin [N, D]
#   y   = x * rsqrt(mean(x^2) + eps) * weight
#   out = y * cos + cat([-y[:, D/2:], y[:, :D/2]], 1) * sin
# One inner_persistent kernel: the slices and the cat of the normalized row come back into the
# row (read at shifted indices, recomputed from a re-read of x; the row's statistic per row).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id5(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T3 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T4 = fd.ops.cast(T0, dtype=DataType.Float)
    T5 = fd.ops.mul(T4, T4)
    T6 = fd.ops.sum(T5, dims=[1], keepdim=False, dtype=DataType.Null)
    S7 = fd.define_scalar(128.000, dtype=DataType.Double)
    T8 = fd.ops.div(T6, S7)
    S9 = fd.define_scalar(1.00000e-06, dtype=DataType.Double)
    T10 = fd.ops.add(T8, S9)
    T11 = fd.ops.rsqrt(T10)
    V12 = T0.shape()
    T13 = fd.ops.broadcast_in_dim(T11, shape=V12, broadcast_dims=[0])
    T14 = fd.ops.mul(T4, T13)
    T15 = fd.ops.cast(T1, dtype=DataType.Float)
    T16 = fd.ops.broadcast_in_dim(T15, shape=V12, broadcast_dims=[1])
    T17 = fd.ops.mul(T14, T16)
    S18 = fd.ops.size(T0, dim=0)
    T19 = fd.ops.slice(T17, start_indices=[0, 64], end_indices=[S18, 128], strides=[1, 1])
    T20 = fd.ops.neg(T19)
    T21 = fd.ops.slice(T17, start_indices=[0, 0], end_indices=[S18, 64], strides=[1, 1])
    T22 = fd.ops.cat([T20, T21], dim=1)
    T23 = fd.ops.cast(T2, dtype=DataType.Float)
    T24 = fd.ops.cast(T3, dtype=DataType.Float)
    T25 = fd.ops.mul(T17, T23)
    T26 = fd.ops.mul(T22, T24)
    T27 = fd.ops.add(T25, T26)
    T28 = fd.ops.cast(T27, dtype=DataType.BFloat16)
    fd.add_output(T28)

inputs = [
    torch.randn(64, 128, dtype=torch.bfloat16, device='cuda'),
    torch.testing.make_tensor((128,), dtype=torch.bfloat16, device='cuda', low=0.5, high=1.5),
    torch.randn(64, 128, dtype=torch.bfloat16, device='cuda'),
    torch.randn(64, 128, dtype=torch.bfloat16, device='cuda'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id5(fd)

out = fd.execute(inputs)
