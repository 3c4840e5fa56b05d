# RMS norm forward over the last dim in fp32: y = x * rsqrt(mean(x^2) + eps) * weight, written
# as nvFuser's python_definition dump of a decomposed rms norm. Outputs: y and rstd ([N, 1]).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id2(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T2 = fd.ops.mul(T0, T0)
    T3 = fd.ops.sum(T2, dims=[1], keepdim=False, dtype=DataType.Null)
    S4 = fd.ops.size(T0, dim=1)
    T5 = fd.ops.truediv(T3, S4)
    S6 = fd.ops.size(T0, dim=0)
    S7 = fd.define_scalar(1, dtype=DataType.Int)
    V8 = fd.define_vector([S6, S7], dtype=DataType.Int)
    T9 = fd.ops.broadcast_in_dim(T5, shape=V8, broadcast_dims=[0])
    S10 = fd.define_scalar(1.00000e-06, dtype=DataType.Double)
    T11 = fd.ops.add(T9, S10)
    T12 = fd.ops.rsqrt(T11)
    V13 = T0.shape()
    T14 = fd.ops.broadcast_in_dim(T12, shape=V13, broadcast_dims=[0, 1])
    T15 = fd.ops.mul(T0, T14)
    T16 = fd.ops.broadcast_in_dim(T1, shape=V13, broadcast_dims=[1])
    T17 = fd.ops.mul(T15, T16)
    fd.add_output(T17)
    fd.add_output(T12)

inputs = [
    torch.randn(6, 48, device='cuda'),
    torch.testing.make_tensor((48,), dtype=torch.float32, device='cuda', low=0.5, high=1.5),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id2(fd)

out = fd.execute(inputs)
