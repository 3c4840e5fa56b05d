# A reduction beside an expanded dim: a [37, 1000] Float input of strides [0, 1] (stride-0 rows,
# contiguity [None, True]) summed over its columns, as nvFuser schedules it: the reduction kernel
# computes one row and the output is stride 0 over the 37 rows. Refused before ("reduction input
# T0 has an expanded broadcast dim (not supported by the reduction scheduler yet)").
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.sum(T0, dims=[1], keepdim=False, dtype=DataType.Null)
    fd.add_output(T1)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(1000, device='cuda').as_strided((37, 1000), (0, 1)),
]
fd.execute(inputs)
