# A hand-written repro that spells dtypes the PyTorch way (torch.float16, torch.float,
# torch.bfloat16, torch.half) where nvFuser's dump writes DataType.*: a bf16 bias broadcast onto
# fp16 rows, clamped to [float("-inf"), 6.0], entries above 6 replaced by float("nan"), and the
# row sums in half precision.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id2(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=torch.float16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=torch.bfloat16, is_cpu=False)
    T2 = fd.ops.cast(T0, dtype=torch.float32)
    T3 = fd.ops.cast(T1, dtype=torch.float)
    T4 = fd.ops.broadcast_in_dim(T3, shape=T0.shape(), broadcast_dims=[1])
    T5 = fd.ops.add(T2, T4)
    S6 = fd.define_scalar(float("-inf"), dtype=DataType.Double)
    S7 = fd.define_scalar(6.00000, dtype=DataType.Double)
    T8 = fd.ops.clamp(T5, S6, S7)
    T9 = fd.ops.gt(T5, S7)
    S10 = fd.define_scalar(float("nan"), dtype=DataType.Float)
    T11 = fd.ops.where(T9, S10, T8)
    T12 = fd.ops.sum(T8, dims=[1], keepdim=False, dtype=torch.float32)
    T13 = fd.ops.cast(T12, dtype=torch.half)
    fd.add_output(T11)
    fd.add_output(T13)

with FusionDefinition() as fd:
    nvfuser_fusion_id2(fd)

inputs = [
    torch.randn(3, 5, dtype=torch.float16, device='cuda'),
    torch.randn(5, dtype=torch.bfloat16, device='cuda'),
]
fd.execute(inputs)
