# embedding_fwd with every optional argument a run-time scalar, as nvFuser's test_embedding builds
# it (padding_idx -2, max_norm 1e-5, norm_type 1.0, scale_grad_by_freq and sparse given). The
# run-time norm_type selects the row norm with where(); its +-inf test compared with an integral
# constant 1e308 typed Int, emitted as `1e+308LL`, which NVRTC refused in the inner_persistent
# kernel (the 8 max_norm cases of test_embedding).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False, stride_order=[0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    S3 = fd.define_scalar(None, dtype=DataType.Float)
    S4 = fd.define_scalar(None, dtype=DataType.Float)
    S5 = fd.define_scalar(None, dtype=DataType.Bool)
    S6 = fd.define_scalar(None, dtype=DataType.Bool)
    T7 = fd.ops.embedding_fwd(T0, T1, S2, S3, S4, S5, S6)
    fd.add_output(T7)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randint(10, (3,), dtype=torch.int64, device='cuda'),
    torch.randn(10, 3, dtype=torch.bfloat16, device='cuda'),
    -2,
    1e-05,
    1.0,
    True,
    True,
]
fd.execute(inputs)
