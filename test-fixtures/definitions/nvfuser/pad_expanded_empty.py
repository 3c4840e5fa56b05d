# pad of expanded broadcasts: a [2, 0, 3] Double tensor of strides [0, 0, 0] (every dim expanded,
# contiguity None, as nvFuser's from_pytorch describes it) padded by (1, 0) on dim 0 and (1, 1) on
# dim 1 with -3.70753, as nvFuser's test_pad_expanded_empty builds it: a [3, 2, 3] tensor of the pad
# value. Refused before ("pad producing T1 resizes broadcast dim 0 of T0"); now one pointwise kernel.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[None, None, None], dtype=DataType.Double, is_cpu=False, stride_order=[2, 1, 0])
    S1 = fd.define_scalar(-3.70753, dtype=DataType.Double)
    T2 = fd.ops.pad(T0, [0, 0, 1, 1, 1, 0], S1)
    fd.add_output(T2)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn((0,), dtype=torch.float64, device='cuda:0').as_strided((2, 0, 3), (0, 0, 0)),
]
fd.execute(inputs)
