# Softmax over a padded row (issue 20's example (a)): T1 = pad(T0, [0, 8]) with 0, then
# max / sub / exp / sum / div over dim 1, written as nvFuser's python_definition dump shows it.
# One inner_persistent kernel: the row's loops run over the padded row, T0 read where the pad
# is not (a predicated load), the pad value elsewhere.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id6(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    S1 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T2 = fd.ops.pad(T0, [0, 8, 0, 0], S1)
    T3 = fd.ops.max(T2, dims=[1], keepdim=False, dtype=DataType.Null)
    V4 = T2.shape()
    T5 = fd.ops.broadcast_in_dim(T3, shape=V4, broadcast_dims=[0])
    T6 = fd.ops.sub(T2, T5)
    T7 = fd.ops.exp(T6)
    T8 = fd.ops.sum(T7, dims=[1], keepdim=False, dtype=DataType.Null)
    T9 = fd.ops.broadcast_in_dim(T8, shape=V4, broadcast_dims=[0])
    T10 = fd.ops.div(T7, T9)
    fd.add_output(T10)

inputs = [
    torch.randn(6, 32, device='cuda'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id6(fd)

out = fd.execute(inputs)
