# A pad by widths computed from scalars ((int64)(2.5f * 7) = 17 on both sides of the last two dims),
# as nvFuser's test_pad_dynamic builds it. Refused before ("cannot evaluate extent i6"); the
# widths fold to constants, so it is one pointwise kernel, as in nvFuser.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[1, -1, -1], contiguity=[None, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])
    S10 = fd.define_scalar(2.5, dtype=DataType.Float)
    S13 = fd.define_scalar(7, dtype=DataType.Int)
    S15 = fd.ops.mul(S10, S13)
    S16 = fd.ops.cast(S15, dtype=DataType.Int)
    T1 = fd.ops.pad(T0, [S16, S16, S16, S16])
    fd.add_output(T1)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn((1, 2, 3), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
