# nvFuser's test_reshape_cancellation (test_repro.py) at 1/128 of its sizes (2048 -> 16 rows, 256 -> 16
# wide heads, 4608 -> 288): slices of T3 reshaped [.., 4, 96] -> [.., 4, 6, 16] -> [.., 24, 16], the
# second reshape merging dims the slice left strided (4 x 288 apart), inside an expr_eval segment. Refused
# before ("reshape producing T.. cannot be viewed as [..] without a copy"); now the launch plan copies the
# reshape's input densely (a pointwise copy kernel, torch.reshape semantics) and views the copy
# (--dump host_ir says so). Inputs in the test's layouts: every other element, a stride-0 dim.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[1, 16, 24, 2], contiguity=[None, True, True, False], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T1 = fd.define_tensor(shape=[1, 16, 24, 2], contiguity=[None, True, True, False], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T2 = fd.define_tensor(shape=[1, 16, 24, 2], contiguity=[None, True, True, False], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T3 = fd.define_tensor(shape=[1, 16, 4, 288], contiguity=[None, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T4 = fd.define_tensor(shape=[1, 16, 24, 2], contiguity=[None, True, True, False], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T5 = fd.define_tensor(shape=[1, 16, 24, 4], contiguity=[None, True, None, True], dtype=DataType.Float, is_cpu=False, stride_order=[3, 2, 1, 0])
    T6 = fd.define_tensor(shape=[1, 16, 24, 4], contiguity=[None, True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[3, 2, 1, 0])
    T7 = fd.define_tensor(shape=[1, 16, 24, 4], contiguity=[None, True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[3, 2, 1, 0])
    T8 = fd.ops.cast(T0, dtype=DataType.Float)
    T9 = fd.ops.neg(T8)
    T10 = fd.ops.cast(T9, dtype=DataType.BFloat16)
    T11 = fd.ops.broadcast_in_dim(T1, shape=[1, 16, 24, 2, 1], broadcast_dims=[0, 1, 2, 3])
    T12 = fd.ops.broadcast_in_dim(T10, shape=[1, 16, 24, 2, 1], broadcast_dims=[0, 1, 2, 3])
    T13 = fd.ops.cast(T2, dtype=DataType.Float)
    T14 = fd.ops.slice(T3, start_indices=[0, 0, 0, 192], end_indices=[1, 16, 4, 288], strides=[1, 1, 1, 1], manual_normalization=0)
    T15 = fd.ops.cat([T12, T11], dim=-1, manual_padding=0)
    T16 = fd.ops.neg(T13)
    T17 = fd.ops.reshape(T14, new_shape=[1, 16, 4, 6, 16])
    T18 = fd.ops.reshape(T15, new_shape=[1, 16, 24, 4])
    T19 = fd.ops.cast(T16, dtype=DataType.BFloat16)
    T20 = fd.ops.reshape(T17, new_shape=[1, 16, 24, 16])
    T21 = fd.ops.cast(T18, dtype=DataType.Float)
    T22 = fd.ops.broadcast_in_dim(T4, shape=[1, 16, 24, 2, 1], broadcast_dims=[0, 1, 2, 3])
    T23 = fd.ops.broadcast_in_dim(T19, shape=[1, 16, 24, 2, 1], broadcast_dims=[0, 1, 2, 3])
    T24 = fd.ops.slice(T20, start_indices=[0, 0, 0, 4], end_indices=[1, 16, 24, 16], strides=[1, 1, 1, 1], manual_normalization=0)
    T25 = fd.ops.mul(T21, T5)
    T26 = fd.ops.slice(T3, start_indices=[0, 0, 0, 0], end_indices=[1, 16, 4, 96], strides=[1, 1, 1, 1], manual_normalization=0)
    T27 = fd.ops.cat([T23, T22], dim=-1, manual_padding=0)
    T28 = fd.ops.cast(T24, dtype=DataType.Float)
    T29 = fd.ops.add(T6, T25)
    T30 = fd.ops.reshape(T26, new_shape=[1, 16, 4, 6, 16])
    T31 = fd.ops.reshape(T27, new_shape=[1, 16, 24, 4])
    T32 = fd.ops.cat([T29, T28], dim=-1, manual_padding=0)
    T33 = fd.ops.reshape(T30, new_shape=[1, 16, 24, 16])
    T34 = fd.ops.cast(T31, dtype=DataType.Float)
    T35 = fd.ops.permute(T32, dims=[0, 2, 1, 3])
    T36 = fd.ops.slice(T33, start_indices=[0, 0, 0, 4], end_indices=[1, 16, 24, 16], strides=[1, 1, 1, 1], manual_normalization=0)
    T37 = fd.ops.mul(T34, T5)
    T38 = fd.ops.cast(T35, dtype=DataType.BFloat16)
    T39 = fd.ops.cast(T36, dtype=DataType.Float)
    T40 = fd.ops.add(T7, T37)
    T41 = fd.ops.cat([T40, T39], dim=-1, manual_padding=0)
    T42 = fd.ops.permute(T35, dims=[0, 1, 3, 2])
    T43 = fd.ops.permute(T41, dims=[0, 2, 1, 3])
    fd.add_output(T43)
    fd.add_output(T38)
    fd.add_output(T42)

with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.randn((1, 16, 24, 4), dtype=torch.bfloat16, device='cuda').as_strided((1, 16, 24, 2), (1536, 96, 4, 2)),
    torch.randn((1, 16, 24, 4), dtype=torch.bfloat16, device='cuda').as_strided((1, 16, 24, 2), (1536, 96, 4, 2)),
    torch.randn((1, 16, 24, 4), dtype=torch.bfloat16, device='cuda').as_strided((1, 16, 24, 2), (1536, 96, 4, 2)),
    torch.randn((1, 16, 4, 288), dtype=torch.bfloat16, device='cuda'),
    torch.randn((1, 16, 24, 4), dtype=torch.bfloat16, device='cuda').as_strided((1, 16, 24, 2), (1536, 96, 4, 2)),
    torch.randn((1, 16, 1, 4), dtype=torch.float32, device='cuda').as_strided((1, 16, 24, 4), (64, 4, 0, 1)),
    torch.randn((1, 16, 24, 4), dtype=torch.float32, device='cuda'),
    torch.randn((1, 16, 24, 4), dtype=torch.float32, device='cuda'),
]
fd.execute(inputs)
