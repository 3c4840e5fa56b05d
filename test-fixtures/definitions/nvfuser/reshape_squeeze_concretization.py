# A slice of a [2, 5, 10] tensor ([0:1, 0:2, 0:4], strides [50, 10, 1]) reshaped to [1, 8] then [8],
# as nvFuser's test_reshape_squeeze_concretization builds it. The slice is a view (expr_eval); the
# reshape of that strided view cannot be a view, so it is copied by a kernel, as torch.reshape
# copies. Refused before: "segment 1 (expr_eval): reshape producing T2: sizes [1, 2, 4] with
# strides [50, 10, 1] cannot be viewed as [8] without a copy".
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.ops.slice(T0, start_indices=[0, 0, 0], end_indices=[1, 2, 4], strides=[1, 1, 1])
    S2 = fd.define_scalar(1, dtype=DataType.Int)
    S3 = fd.define_scalar(8, dtype=DataType.Int)
    T6 = fd.ops.reshape(T1, new_shape=[S2, S3])
    T7 = fd.ops.reshape(T6, new_shape=[S3])
    fd.add_output(T7)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn((100,), dtype=torch.float32, device='cuda:0').as_strided((2, 5, 10), (50, 10, 1)),
]
fd.execute(inputs)
