# group_norm_bwd bf16 at the sweep's 8192 x 4096 point, for `tsfuser run <file> --backend gpu --profile`
# (per-kernel device time of its 3 kernels; too large for --check's host reference).
import torch
from nvfuser import FusionDefinition, DataType

def group_norm_bwd(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T4 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T5 = fd.ops.cast(T0, dtype=DataType.Float)
    T6 = fd.ops.cast(T1, dtype=DataType.Float)
    T7 = fd.ops.broadcast_in_dim(T4, shape=T0.shape(), broadcast_dims=[0, 1])
    T8 = fd.ops.mul(fd.ops.sub(T5, fd.ops.broadcast_in_dim(T3, shape=T0.shape(), broadcast_dims=[0, 1])), T7)
    T9 = fd.ops.mul(T6, fd.ops.broadcast_in_dim(fd.ops.cast(T2, dtype=DataType.Float), shape=T0.shape(), broadcast_dims=[1, 2]))
    S10 = fd.ops.mul(fd.ops.size(T0, dim=2), fd.ops.size(T0, dim=3))
    T11 = fd.ops.broadcast_in_dim(fd.ops.truediv(fd.ops.sum(T9, dims=[2, 3], keepdim=False, dtype=DataType.Null), S10), shape=T0.shape(), broadcast_dims=[0, 1])
    T12 = fd.ops.broadcast_in_dim(fd.ops.truediv(fd.ops.sum(fd.ops.mul(T9, T8), dims=[2, 3], keepdim=False, dtype=DataType.Null), S10), shape=T0.shape(), broadcast_dims=[0, 1])
    T13 = fd.ops.mul(fd.ops.sub(fd.ops.sub(T9, T11), fd.ops.mul(T8, T12)), T7)
    fd.add_output(fd.ops.cast(T13, dtype=DataType.BFloat16))
    fd.add_output(fd.ops.cast(fd.ops.sum(fd.ops.mul(T6, T8), dims=[0, 3], keepdim=False, dtype=DataType.Null), dtype=DataType.BFloat16))
    fd.add_output(fd.ops.cast(fd.ops.sum(T6, dims=[0, 3], keepdim=False, dtype=DataType.Null), dtype=DataType.BFloat16))

inputs = [
    torch.randn((128, 32, 2, 4096), dtype=torch.bfloat16, device='cuda:0'),
    torch.randn((128, 32, 2, 4096), dtype=torch.bfloat16, device='cuda:0'),
    torch.randn((32, 2), dtype=torch.bfloat16, device='cuda:0'),
    torch.randn((128, 32), dtype=torch.float32, device='cuda:0'),
    torch.rand((128, 32), dtype=torch.float32, device='cuda:0'),
]

with FusionDefinition() as fd:
    group_norm_bwd(fd)
