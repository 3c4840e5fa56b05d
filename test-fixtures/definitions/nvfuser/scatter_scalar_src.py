# scatter of a Double scalar input into a Float tensor along dim 0 at topk's indices, as nvFuser's
# test_scatter_scalar_src builds it. Refused before: "the scalar src is neither a constant nor a
# segment input of Float" (the src is the input cast to Float); the scatter kernel converts it.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False, stride_order=[1, 0])
    S2 = fd.define_scalar(None, dtype=DataType.Double)
    T3 = fd.ops.scatter(T0, T1, S2, 0)
    fd.add_output(T3)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(128, 1024, device='cuda'),
    torch.topk(torch.randn(128, 1024, device='cuda'), k=64, dim=0)[1],
    1.5,
]
fd.execute(inputs)
