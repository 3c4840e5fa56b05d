"""Generates real traced TorchScript graphs with matrix products and attention (issues 33, 34).

For each nn.Module below it writes, under test-fixtures/torchscript/traced-matmul/ (the
Linear -> GELU and MLP modules under test-fixtures/torchscript/traced/, the directory the
tsfuser-traced-graphs GPU entry runs: their linears are GEMM segments inside fusion groups):
  <name>.traced.ir    the graph torch.jit.trace records of the module's forward (parameters are
                      made graph inputs by tracing a function of them, so the .ir is
                      self-contained);
  <name>/in<i>.npy    the inputs (activations first, then the parameters, bfloat16 as '<u2');
  <name>/out<i>.npy   PyTorch's eager outputs on those inputs.
Modules: Linear → GELU, a GPT MLP block (linear → gelu(tanh) → linear, with biases), a
bfloat16 MLP, an attention block (QKV projections, F.scaled_dot_product_attention causal, output
projection), and mm / bmm / addmm / baddbmm / matmul directly.
Run: /work/torchvenv/bin/python tools/torchscript/generate_matmul_graphs.py
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from generate_graphs import save_npy, to_cuda_text  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'test-fixtures', 'torchscript')
OUT = os.path.join(FIXTURES, 'traced-matmul')
# The modules whose whole forward fuses (GEMM segments in the groups): with the other traced graphs.
IN_TRACED = {'linear_gelu', 'mlp', 'mlp_bf16'}
torch.manual_seed(33)


def rnd(*shape, dtype=torch.float32, scale=1.0):
    return ((torch.rand(*shape) * 2 - 1) * scale).to(dtype)


def linear_gelu(x, w, b):
    return F.gelu(F.linear(x, w, b))


def mlp(x, w1, b1, w2, b2):
    return F.linear(F.gelu(F.linear(x, w1, b1), approximate='tanh'), w2, b2)


# Batch 2, 6 tokens, 2 heads of 8: literal sizes, so the trace records constant view shapes
# (x.shape arithmetic would record 0-dim CPU tensor ops on the host).
N, L, H, E = 2, 6, 2, 8


def attention(x, wq, wk, wv, wo):
    q = F.linear(x, wq).view(N, L, H, E).transpose(1, 2)
    k = F.linear(x, wk).view(N, L, H, E).transpose(1, 2)
    v = F.linear(x, wv).view(N, L, H, E).transpose(1, 2)
    o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return F.linear(o.transpose(1, 2).reshape(N, L, H * E), wo)


def gqa_attention(q, k, v, mask):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.5, enable_gqa=True)


def products(a, b, c, bb, cc):
    return torch.mm(a, b), torch.addmm(c, a, b, beta=0.5, alpha=2.0), torch.bmm(bb, cc), torch.baddbmm(torch.bmm(bb, cc), bb, cc), torch.matmul(bb, b)


CASES = [
    ('linear_gelu', linear_gelu, lambda: [rnd(2, 7, 16), rnd(24, 16, scale=0.25), rnd(24)]),
    ('mlp', mlp, lambda: [rnd(2, 5, 16), rnd(64, 16, scale=0.25), rnd(64), rnd(16, 64, scale=0.125), rnd(16)]),
    ('mlp_bf16', mlp, lambda: [rnd(9, 16, dtype=torch.bfloat16), rnd(32, 16, dtype=torch.bfloat16, scale=0.25), rnd(32, dtype=torch.bfloat16),
                               rnd(16, 32, dtype=torch.bfloat16, scale=0.25), rnd(16, dtype=torch.bfloat16)]),
    ('attention', attention, lambda: [rnd(2, 6, 16), rnd(16, 16, scale=0.25), rnd(16, 16, scale=0.25), rnd(16, 16, scale=0.25), rnd(16, 16, scale=0.25)]),
    ('gqa_attention', gqa_attention, lambda: [rnd(1, 4, 5, 8), rnd(1, 2, 7, 8), rnd(1, 2, 7, 8), torch.rand(5, 7) > 0.3]),
    ('products', products, lambda: [rnd(3, 5), rnd(5, 4), rnd(3, 4), rnd(2, 3, 5), rnd(2, 5, 4)]),
]


def main():
    for name, fn, make_inputs in CASES:
        out_dir = os.path.join(FIXTURES, 'traced') if name in IN_TRACED else OUT
        os.makedirs(out_dir, exist_ok=True)
        inputs = make_inputs()
        with torch.no_grad():
            outputs = fn(*inputs)
            traced = torch.jit.trace(fn, inputs, check_trace=False)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        with open(os.path.join(out_dir, f'{name}.traced.ir'), 'w') as f:
            f.write(to_cuda_text(traced.graph).replace(os.path.abspath(__file__), 'generate_matmul_graphs.py'))
        d = os.path.join(out_dir, name)
        os.makedirs(d, exist_ok=True)
        for i, t in enumerate(inputs):
            save_npy(os.path.join(d, f'in{i}.npy'), t)
        for i, t in enumerate(outputs):
            save_npy(os.path.join(d, f'out{i}.npy'), t)
        print(name, file=sys.stderr)


if __name__ == '__main__':
    main()
