# sdpfa_fwd whose scale is a runtime Double scalar, as nvFuser's test_sdpa_fwd builds it
# (define_scalar(value=None, dtype=Double) passed as scale=): refused before ("scale must be a
# constant of the definition"); now the attention kernels read it as their scale parameter at
# each call (scheduler AttentionScale { input }), one plan for every value. GQA and L != S here.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=True, dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=True, dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=True, dtype=DataType.BFloat16, is_cpu=False)
    S3 = fd.define_scalar(value=None, dtype=DataType.Double)
    T4, T5, T6, T7 = fd.ops.sdpfa_fwd(T0, T1, T2, dropout_p=None, is_causal=True, scale=S3)
    fd.add_output(T4)
    fd.add_output(T5)

with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.randn((2, 8, 40, 64), dtype=torch.bfloat16, device='cuda'),
    torch.randn((2, 2, 72, 64), dtype=torch.bfloat16, device='cuda'),
    torch.randn((2, 2, 72, 64), dtype=torch.bfloat16, device='cuda'),
    0.37,
]
fd.execute(inputs)
