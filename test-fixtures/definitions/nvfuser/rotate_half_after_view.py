# RoPE's rotate-half after a reshape / permute / slice view of the input (the form of nvFuser's
# test_issue3292, smaller): the view runs as expr_eval, and the pointwise kernel reads its output
# in three index spaces (x itself, its two halves and an empty slice cat to the result). The copies recomputed for the halves kept
# the global memory type of a segment output and were indexed as undeclared tensors (NVRTC:
# identifier "T23" is undefined).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[4, 6, 192], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.ops.reshape(T0, new_shape=[4, 6, 1, 3, 64])
    T2 = fd.ops.permute(T1, dims=[0, 2, 3, 1, 4])
    T3 = fd.ops.slice(T2, start_indices=[0, 0, 0, 0, 0], end_indices=[4, 1, 2, 6, 64], strides=[1, 1, 1, 1, 1], manual_normalization=0)
    T4 = fd.ops.reshape(T3, new_shape=[4, 2, 6, 64])
    T5 = fd.ops.slice(T4, start_indices=[0, 0, 0, 0], end_indices=[4, 2, 6, 32], strides=[1, 1, 1, 1], manual_normalization=0)
    T6 = fd.ops.slice(T4, start_indices=[0, 0, 0, 32], end_indices=[4, 2, 6, 64], strides=[1, 1, 1, 1], manual_normalization=0)
    T7 = fd.ops.neg(T6)
    T8 = fd.ops.cat([T7, T5], dim=-1, manual_padding=0)
    T9 = fd.ops.mul(T4, T4)
    T10 = fd.ops.mul(T8, T8)
    T11 = fd.ops.add(T9, T10)
    T12 = fd.ops.slice(T4, start_indices=[0, 0, 0, 0], end_indices=[4, 2, 6, 0], strides=[1, 1, 1, 1], manual_normalization=0)
    T13 = fd.ops.cat([T11, T12], dim=-1, manual_padding=0)
    fd.add_output(T13)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(4, 6, 192, device='cuda'),
]
fd.execute(inputs)
