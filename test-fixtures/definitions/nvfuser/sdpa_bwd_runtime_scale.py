# sdpfa_fwd then sdpfa_bwd with one runtime Double scale for both (nvFuser's test_sdpa_fwd_bwd /
# test_sdpa_bwd pass scale as define_scalar(value=None, dtype=Double)): refused before; now the
# forward, backward main and dQ-convert kernels take each call's value as their scale parameter.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=True, dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=True, dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=True, dtype=DataType.BFloat16, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=True, dtype=DataType.BFloat16, is_cpu=False)
    S4 = fd.define_scalar(value=None, dtype=DataType.Double)
    T5, T6, T7, T8 = fd.ops.sdpfa_fwd(T0, T1, T2, dropout_p=None, is_causal=False, scale=S4)
    T9, T10, T11 = fd.ops.sdpfa_bwd(T3, T0, T1, T2, T5, T6, None, None, T7, T8, S4)
    fd.add_output(T5)
    fd.add_output(T9)
    fd.add_output(T10)
    fd.add_output(T11)

with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.randn((1, 4, 48, 128), dtype=torch.bfloat16, device='cuda'),
    torch.randn((1, 4, 48, 128), dtype=torch.bfloat16, device='cuda'),
    torch.randn((1, 4, 48, 128), dtype=torch.bfloat16, device='cuda'),
    torch.randn((1, 4, 48, 128), dtype=torch.bfloat16, device='cuda'),
    0.21,
]
fd.execute(inputs)
