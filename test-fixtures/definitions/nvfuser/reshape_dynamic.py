# A reshape to sizes computed at run time from an Int scalar input, then a sum, as nvFuser's
# test_reshape_dynamic builds it ([S0, 192 * reciprocal(S0) - (signbit(S0) & fmod(192, S0) != 0)],
# torch's -1 inference). Refused before: "cannot evaluate extent i20 from the input sizes and
# integral scalar inputs" (scheduler), then "extent i20 is neither constant nor derived from a
# tensor argument's sizes" (codegen); the kernel now computes the extent from its scalar argument.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    S0 = fd.define_scalar(None, dtype=DataType.Int)
    T1 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])
    S2 = fd.define_scalar(1, dtype=DataType.Int)
    S3 = fd.ops.mul(S2, S0)
    S4 = fd.ops.signbit(S3)
    S5 = fd.define_scalar(False, dtype=DataType.Bool)
    S6 = fd.ops.ne(S4, S5)
    S7 = fd.define_scalar(192, dtype=DataType.Int)
    S8 = fd.ops.fmod(S7, S3)
    S9 = fd.ops.cast(S8, dtype=DataType.Int)
    S10 = fd.define_scalar(0, dtype=DataType.Int)
    S11 = fd.ops.ne(S9, S10)
    S12 = fd.ops.bitwise_and(S6, S11)
    S13 = fd.define_scalar(192, dtype=DataType.Int)
    S14 = fd.ops.reciprocal(S3)
    S15 = fd.ops.mul(S13, S14)
    S16 = fd.ops.cast(S12, dtype=DataType.Int)
    S17 = fd.ops.sub(S15, S16)
    T19 = fd.ops.reshape(T1, new_shape=[S0, S17])
    T20 = fd.ops.sum(T19, dims=[1], keepdim=False, dtype=DataType.Null)
    fd.add_output(T20)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    32,
    torch.randn((192,), dtype=torch.float32, device='cuda:0').as_strided((4, 8, 6), (48, 6, 1)),
]
fd.execute(inputs)
