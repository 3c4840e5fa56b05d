# instance_norm_bwd (tsfuser bench --suite sweep's definition, BFloat16) at a small odd-or-even size, for
# `tsfuser run <file> --backend gpu --check` (issue 38: its GPU plan against the reference evaluator).
import torch
from nvfuser import FusionDefinition, DataType

def instance_norm_bwd(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T4 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T5 = fd.ops.cast(T0, dtype=DataType.Float)
    T6 = fd.ops.cast(T1, dtype=DataType.Float)
    T7 = fd.ops.broadcast_in_dim(T4, shape=T0.shape(), broadcast_dims=[0, 1])
    T8 = fd.ops.mul(fd.ops.sub(T5, fd.ops.broadcast_in_dim(T3, shape=T0.shape(), broadcast_dims=[0, 1])), T7)
    T9 = fd.ops.mul(T6, fd.ops.broadcast_in_dim(fd.ops.cast(T2, dtype=DataType.Float), shape=T0.shape(), broadcast_dims=[1]))
    S10 = fd.ops.size(T0, dim=2)
    T11 = fd.ops.broadcast_in_dim(fd.ops.truediv(fd.ops.sum(T9, dims=[2], keepdim=False, dtype=DataType.Null), S10), shape=T0.shape(), broadcast_dims=[0, 1])
    T12 = fd.ops.broadcast_in_dim(fd.ops.truediv(fd.ops.sum(fd.ops.mul(T9, T8), dims=[2], keepdim=False, dtype=DataType.Null), S10), shape=T0.shape(), broadcast_dims=[0, 1])
    T13 = fd.ops.mul(fd.ops.sub(fd.ops.sub(T9, T11), fd.ops.mul(T8, T12)), T7)
    fd.add_output(fd.ops.cast(T13, dtype=DataType.BFloat16))
    fd.add_output(fd.ops.cast(fd.ops.sum(fd.ops.mul(T6, T8), dims=[0, 2], keepdim=False, dtype=DataType.Null), dtype=DataType.BFloat16))
    fd.add_output(fd.ops.cast(fd.ops.sum(T6, dims=[0, 2], keepdim=False, dtype=DataType.Null), dtype=DataType.BFloat16))

inputs = [
    torch.randn((8, 16, 1024), dtype=torch.bfloat16, device='cuda:0'),
    torch.randn((8, 16, 1024), dtype=torch.bfloat16, device='cuda:0'),
    torch.randn((16,), dtype=torch.bfloat16, device='cuda:0'),
    torch.randn((8, 16), dtype=torch.float32, device='cuda:0'),
    torch.rand((8, 16), dtype=torch.float32, device='cuda:0'),
]

with FusionDefinition() as fd:
    instance_norm_bwd(fd)
