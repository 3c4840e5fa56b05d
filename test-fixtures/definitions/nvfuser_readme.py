# Example 1 of nvFuser's python frontend README: t0 has a broadcast middle dim and is added to
# t1, scaled by a constant and summed over the last dim.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(symbolic_sizes=[-1, 1, -1], contiguous=[True, True, True], dtype=DataType.Float)
    T1 = fd.define_tensor(symbolic_sizes=[-1, -1, -1], contiguous=[False, False, False], dtype=DataType.Float)
    S2 = fd.define_constant(3.00000)
    T3 = fd.ops.add(T0, T1)
    T4 = fd.ops.mul(T3, S2)
    T5 = fd.ops.sum(T4, axes=[-1], keepdim=False, dtype=DataType.Float)
    fd.add_output(T5)

inputs = [
    torch.ones(2, 1, 8, device='cuda'),
    torch.ones(2, 4, 8, device='cuda'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

nvf_out = fd.execute(inputs)[0]
