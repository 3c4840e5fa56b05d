# nextafter of Float and Double tensors and Float / Double constants in every operand order, as
# nvFuser's test_nextafter builds it (the scalar-only pairs left out: scalar outputs are not
# supported). A Float constant reached nvf_nextafter(float, double), an ambiguous overload that
# NVRTC refused; a Float result steps one float32 ulp (torch.nextafter).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Double, is_cpu=False, stride_order=[0])
    S2 = fd.define_scalar(1.00000, dtype=DataType.Float)
    S3 = fd.define_scalar(-1.00000, dtype=DataType.Double)
    T4 = fd.ops.nextafter(T0, T0)
    T5 = fd.ops.nextafter(T0, T1)
    T6 = fd.ops.nextafter(T0, S2)
    T7 = fd.ops.nextafter(T0, S3)
    T8 = fd.ops.nextafter(T1, T0)
    T9 = fd.ops.nextafter(T1, T1)
    T10 = fd.ops.nextafter(T1, S2)
    T11 = fd.ops.nextafter(T1, S3)
    T12 = fd.ops.nextafter(S2, T0)
    T13 = fd.ops.nextafter(S2, T1)
    T14 = fd.ops.nextafter(S3, T0)
    T15 = fd.ops.nextafter(S3, T1)
    fd.add_output(T4)
    fd.add_output(T5)
    fd.add_output(T6)
    fd.add_output(T7)
    fd.add_output(T8)
    fd.add_output(T9)
    fd.add_output(T10)
    fd.add_output(T11)
    fd.add_output(T12)
    fd.add_output(T13)
    fd.add_output(T14)
    fd.add_output(T15)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(1000, device='cuda'),
    torch.randn(1000, dtype=torch.float64, device='cuda'),
]
fd.execute(inputs)
