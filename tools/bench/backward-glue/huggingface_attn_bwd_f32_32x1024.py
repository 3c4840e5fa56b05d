# huggingface_attn_bwd (tsfuser bench --suite sweep's definition, Float) at a small odd-or-even size, for
# `tsfuser run <file> --backend gpu --check` (issue 38: its GPU plan against the reference evaluator).
import torch
from nvfuser import FusionDefinition, DataType

def huggingface_attn_bwd(fd : FusionDefinition) -> None :
    T5 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    T6 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    T7 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Bool, is_cpu=False)
    S0 = fd.define_scalar(1.25, dtype=DataType.Double)
    T8 = fd.ops.cast(T6, dtype=DataType.Float)
    T11 = fd.ops.mul(fd.ops.mul(fd.ops.cast(T5, dtype=DataType.Float), S0), fd.ops.cast(T7, dtype=DataType.Float))
    T14 = fd.ops.sum(fd.ops.mul(T8, T11), dims=[2], keepdim=False, dtype=DataType.Null)
    T25 = fd.ops.broadcast_in_dim(T14, shape=T5.shape(), broadcast_dims=[0, 1])
    T28 = fd.ops.mul(T8, fd.ops.sub(T11, T25))
    T35 = fd.ops.reshape(T28, new_shape=[1, T5.size(0), T5.size(1), T5.size(2)])
    fd.add_output(fd.ops.cast(T35, dtype=DataType.Float))

inputs = [
    torch.randn((32, 16, 1024), dtype=torch.float32, device='cuda:0'),
    torch.rand((32, 16, 1024), dtype=torch.float32, device='cuda:0'),
    torch.rand((32, 16, 1024), device='cuda:0') > 0.1,
]

with FusionDefinition() as fd:
    huggingface_attn_bwd(fd)
