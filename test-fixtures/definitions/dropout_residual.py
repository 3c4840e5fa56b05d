# Dropout (p = 0.1) of a bf16 activation plus a residual add, composed as nvFuser and Thunder
# write it: rand_like with an explicit philox seed and offset, keep = rand < 0.9, scale 1 / 0.9.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id7(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    S3 = fd.define_scalar(None, dtype=DataType.Int)
    T4 = fd.ops.cast(T0, dtype=DataType.Float)
    T5 = fd.ops.rand_like(T4, rng_seed=S2, rng_offset=S3)
    S6 = fd.define_scalar(0.900000, dtype=DataType.Double)
    T7 = fd.ops.lt(T5, S6)
    T8 = fd.ops.mul(T4, T7)
    S9 = fd.define_scalar(1.11111, dtype=DataType.Double)
    T10 = fd.ops.mul(T8, S9)
    T11 = fd.ops.cast(T1, dtype=DataType.Float)
    T12 = fd.ops.add(T10, T11)
    T13 = fd.ops.cast(T12, dtype=DataType.BFloat16)
    fd.add_output(T13)
    fd.add_output(T7)

inputs = [
    torch.randn(64, 256, dtype=torch.bfloat16, device='cuda'),
    torch.randn(64, 256, dtype=torch.bfloat16, device='cuda'),
    20241124,
    8,
]

with FusionDefinition() as fd:
    nvfuser_fusion_id7(fd)

out = fd.execute(inputs)
