# Masked softmax over the last dim (attention scores): positions whose mask is False get
# float("-inf") before the row max, so they come out as exact zeros. Written for tsfuser in the
# form nvFuser's python_definition dump prints (float("-inf") scalar, DataType.Null reductions,
# size/define_vector shapes).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Bool, is_cpu=False, stride_order=[1, 0])
    S2 = fd.define_scalar(float("-inf"), dtype=DataType.Float)
    T3 = fd.ops.where(T1, T0, S2)
    T4 = fd.ops.max(T3, dims=[1], keepdim=False, dtype=DataType.Null)
    S5 = fd.ops.size(T0, dim=0)
    S6 = fd.define_scalar(1, dtype=DataType.Int)
    V7 = fd.define_vector([S5, S6], dtype=DataType.Int)
    T8 = fd.ops.broadcast_in_dim(T4, shape=V7, broadcast_dims=[0])
    T9 = fd.ops.sub(T3, T8)
    T10 = fd.ops.exp(T9)
    T11 = fd.ops.sum(T10, dims=[1], keepdim=False, dtype=DataType.Null)
    T12 = fd.ops.broadcast_in_dim(T11, shape=V7, broadcast_dims=[0])
    T13 = fd.ops.div(T10, T12)
    fd.add_output(T13)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(4, 8, dtype=torch.float32, device='cuda'),
    torch.ones(4, 8, dtype=torch.bool, device='cuda'),
]
fd.execute(inputs)
