"""A LLaMA-style decoder block as an nn.Module, written as Hugging Face's LlamaDecoderLayer
computes it (issue 35): the PyTorch side of tsfuser's llama_block_* bench workloads
(pytorch_bench.py) and the oracle of its definitions' test fixture
(tools/torch-values/llama_block_values.py) — one module, so both see the same math.

  n1 = RMSNorm(x)                        HF LlamaRMSNorm: weight * (x.float() * rsqrt(mean(x^2) + eps)).to(dtype)
  q, k, v = q_proj(n1), k_proj(n1), v_proj(n1) viewed as [B, n, T, E]
  q, k = q*cos + rotate_half(q)*sin      rotate_half(t) = cat(-t[..., E/2:], t[..., :E/2]); cos/sin [T, E] in x's dtype
  o = sdpa(q, k, v, is_causal=True, scale=1/sqrt(E))   (grouped-query when kv_heads < heads)
  h = x + o_proj(o.transpose(1, 2).reshape(B, T, H*E))
  y = h + down_proj(silu(gate_proj(n2)) * up_proj(n2)), n2 = RMSNorm(h)

Invariant: parameter names and layouts (nn.Linear's [out, in], no bias) are the tsfuser
definitions' inputs: attn_norm.weight, q_proj.weight = wq, … down_proj.weight = w_down.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

# tsfuser's names of the module's parameters, in the definitions' input order.
PARAMETERS = [("attn_norm.weight", "attn_norm.weight"), ("wq", "q_proj.weight"), ("wk", "k_proj.weight"),
              ("wv", "v_proj.weight"), ("wo", "o_proj.weight"), ("ffn_norm.weight", "ffn_norm.weight"),
              ("w_gate", "gate_proj.weight"), ("w_up", "up_proj.weight"), ("w_down", "down_proj.weight")]

CONFIG_7B = dict(batch=2, seq=2048, hidden=4096, heads=32, kv_heads=32, head_dim=128, ffn=11008, eps=1e-6)


class RMSNorm(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        xf = x.to(torch.float32)
        variance = xf.pow(2).mean(-1, keepdim=True)
        xf = xf * torch.rsqrt(variance + self.eps)
        return self.weight * xf.to(dtype)


def rotate_half(t):
    half = t.shape[-1] // 2
    return torch.cat((-t[..., half:], t[..., :half]), dim=-1)


def rope_tables(seq, head_dim, dtype, device, theta=10000.0):
    """HF LlamaRotaryEmbedding: cos / sin of position * theta^(-2i/E), frequencies repeated, [T, E] in `dtype`."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.int64, device=device).float() / head_dim))
    freqs = torch.outer(torch.arange(seq, device=device).float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


class LlamaBlock(nn.Module):
    def __init__(self, hidden, heads, kv_heads, head_dim, ffn, eps, **_):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
        self.attn_norm = RMSNorm(hidden, eps)
        self.q_proj = nn.Linear(hidden, heads * head_dim, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(heads * head_dim, hidden, bias=False)
        self.ffn_norm = RMSNorm(hidden, eps)
        self.gate_proj = nn.Linear(hidden, ffn, bias=False)
        self.up_proj = nn.Linear(hidden, ffn, bias=False)
        self.down_proj = nn.Linear(ffn, hidden, bias=False)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        n1 = self.attn_norm(x)
        q = self.q_proj(n1).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(n1).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(n1).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=1 / math.sqrt(self.head_dim),
                                           enable_gqa=self.kv_heads != self.heads)
        h = x + self.o_proj(o.transpose(1, 2).reshape(b, t, self.heads * self.head_dim))
        n2 = self.ffn_norm(h)
        return h + self.down_proj(F.silu(self.gate_proj(n2)) * self.up_proj(n2))


def init_block(block, generator=None):
    """Weights N(0, 1/fan_in) (activations stay O(1), the scale of the TS workloads' weights), norm weights 1 + 0.1·N(0, 1)."""
    with torch.no_grad():
        for _, attr in PARAMETERS:
            p = block.get_parameter(attr)
            if p.dim() == 1:
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=generator))
            else:
                p.copy_(torch.randn(p.shape, generator=generator) / math.sqrt(p.shape[1]))
    return block


def flops(c, training):
    """GEMM + causal attention flops, as packages/tsfuser/src/bench/llama-block-config.ts counts them."""
    tokens = c["batch"] * c["seq"]
    q_o = 2 * c["hidden"] * c["heads"] * c["head_dim"]
    kv = 2 * c["hidden"] * c["kv_heads"] * c["head_dim"]
    gemm = 2 * tokens * (q_o + kv + 3 * c["hidden"] * c["ffn"])
    attention = 4 * c["batch"] * c["heads"] * c["seq"] ** 2 * c["head_dim"] / 2
    return 3 * gemm + 3.5 * attention if training else gemm + attention
