# An embedding lookup as a language model's first layer writes it: token ids [batch, seq] into a
# bf16 table, scaled by sqrt(hidden) (Gemma), plus an index_select of positions and a
# take_along_axis of the top logits' neighbours — the indexing ops through one definition.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id3(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False, stride_order=[0])
    T3 = fd.ops.embedding_fwd(T0, T1, padding_idx=None, max_norm=None, norm_type=None, scale_grad_by_freq=None, sparse=None)
    T4 = fd.ops.cast(T3, dtype=DataType.Float)
    S5 = fd.define_scalar(8.00000, dtype=DataType.Double)
    T6 = fd.ops.mul(T4, S5)
    T7 = fd.ops.cast(T6, dtype=DataType.BFloat16)
    T8 = fd.ops.index_select(T1, T2, dim=0)
    fd.add_output(T7)
    fd.add_output(T8)

inputs = [
    torch.randint(0, 1000, (4, 16), dtype=torch.int64, device='cuda'),
    torch.randn(1000, 64, dtype=torch.bfloat16, device='cuda'),
    torch.randint(0, 1000, (32,), dtype=torch.int64, device='cuda'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id3(fd)

out = fd.execute(inputs)
