# nvFuser issue #785, simplified example: a reduction and an unrelated pointwise pow in one
# fusion (segmented into a reduction and a pointwise kernel). Sizes reduced from 16x512x4096.
import torch
from nvfuser import FusionDefinition, DataType
def nvfuser_fusion_id6(fd : FusionDefinition) -> None :
    T4 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    T6 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    S7 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T8 = fd.ops.mul(S7, T6)
    S9 = fd.define_scalar(3.00000, dtype=DataType.Double)
    T10 = fd.ops.pow(T6, S9)
    T19 = fd.ops.sum(T4, axes=[0, 1], keepdim=False, dtype=DataType.Null)
    fd.add_output(T19)
    fd.add_output(T10)

inputs = [
        torch.randn(4, 8, 64, device="cuda"),
        torch.randn(4, 8, 64, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id6(fd)

for _ in range(5):
        out = fd.execute(inputs)
