# Rotary-embedding "rotate half" of a [1, S, 8] bf16 tensor: squeeze the leading 1, slice the
# two halves of the last dim, negate the second and concatenate it before the first. Written
# for tsfuser in the form nvFuser's python_definition dump prints, with the keywords nvFuser
# adds to every slice, squeeze and cat (manual_normalization=0, squeeze_expanded=False,
# manual_padding=0).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id1(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[1, -1, 8], contiguity=[None, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.ops.squeeze(T0, dims=[0], squeeze_expanded=False)
    T2 = fd.ops.cast(T1, dtype=DataType.Float)
    S3 = fd.ops.size(T2, dim=0)
    T4 = fd.ops.slice(T2, start_indices=[0, 0], end_indices=[S3, 4], strides=[1, 1], manual_normalization=0)
    T5 = fd.ops.slice(T2, start_indices=[0, 4], end_indices=[S3, 8], strides=[1, 1], manual_normalization=0)
    T6 = fd.ops.neg(T5)
    T7 = fd.ops.cat([T6, T4], dim=-1, manual_padding=0)
    T8 = fd.ops.cast(T7, dtype=DataType.BFloat16)
    fd.add_output(T8)

with FusionDefinition() as fd:
    nvfuser_fusion_id1(fd)

inputs = [
    torch.randn(1, 6, 8, dtype=torch.bfloat16, device='cuda'),
]
fd.execute(inputs)
