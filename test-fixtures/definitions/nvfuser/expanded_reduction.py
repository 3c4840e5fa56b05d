# Reductions of an expanded input, as nvFuser's test_expanded_reduction builds it (nvFuser issue
# 1678): a [2, 3] tensor of strides [0, 0] (every dim expanded, contiguity None) summed over dim 0,
# with and without keepdim. nvFuser's reductionOp squeezes a reduced expanded dim and multiplies by
# its extent; refused before ("no scheduler accepts ReductionOp producing T1 ... reduction input T0
# has an expanded broadcast dim"); now one pointwise kernel writing stride-0 outputs.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, None], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.sum(T0, dims=[0], keepdim=False, dtype=DataType.Null)
    T2 = fd.ops.sum(T0, dims=[0], keepdim=True, dtype=DataType.Null)
    fd.add_output(T1)
    fd.add_output(T2)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.tensor(1.25, device='cuda').as_strided((2, 3), (0, 0)),
]
fd.execute(inputs)
