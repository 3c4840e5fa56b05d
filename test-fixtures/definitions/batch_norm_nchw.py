# Batch norm training forward over N, H, W per channel on an NCHW fp32 input (weight and bias,
# no running stats), as nvFuser's python_definition shows torch.nn.functional.batch_norm with
# training=True. Outputs: y [N, C, H, W], mean and invstd [C]. The reduced dims include the
# innermost one (W), so this is nvFuser's inner persistent pattern (one inner_persistent kernel).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id5(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[3, 2, 1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    S3 = fd.define_scalar(0.100000, dtype=DataType.Double)
    S4 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T5, T6, T7 = fd.ops.batch_norm(T0, T1, T2, None, None, S3, S4, True, channels_last=False)
    fd.add_output(T5)
    fd.add_output(T6)
    fd.add_output(T7)

inputs = [
    torch.randn((8, 32, 16, 16), dtype=torch.float32, device='cuda:0'),
    torch.randn((32,), dtype=torch.float32, device='cuda:0'),
    torch.randn((32,), dtype=torch.float32, device='cuda:0'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id5(fd)

out = fd.execute(inputs)
