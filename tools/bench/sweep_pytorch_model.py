"""PyTorch side of the sweep's model-shaped families (sweep_pytorch.py imports make_model_family):
group_norm backward, rotate-half RoPE and its backward, a two-way cat, the nanoGPT / HuggingFace
attention glue, on the views packages/tsfuser/src/bench/sweep-{batch-norm,resize,attention}-
definitions.ts give a (rows, hidden) point, and the reduction_axis = 0 forms of the sum and softmax
(sweep-more-definitions.ts). fp32 math for bf16, as the tsfuser definitions compute.

  group_norm_bwd        aten.native_group_norm_backward on x [rows/64, 64, hidden], 32 groups,
                        mean / rstd [N, 32] in the input's dtype, as aten takes them (dx, dw, db)
  rope                  x [1, hidden/128, rows, 128]: x * cos + cat(-x[..., 64:], x[..., :64]) * sin,
                        cos / sin [rows, 128]
  rope_bwd              grad_out [1, hidden/128, rows, 128]: dy * cos + cat(v[..., 64:], -v[..., :64]), v = dy * sin
  col_sum               x.float().sum(0).to(dtype)
  softmax_outer         torch.softmax(x, 0)
  softmax_bwd_outer     aten._softmax_backward_data(dy, y, 0, dtype)
  cat                   torch.cat([a, b], -1), a [rows, hidden // 2], b [rows, hidden - hidden // 2]
  nanogpt_attn          scores [1, rows/16, 16, hidden]: softmax(masked_fill(x / 8, bias == 0, -inf)),
                        dropout (mask drawn in the call); returns (out, keep, attn, bias == 0
                        expanded: a view, as tsfuser's stride-0 output)
  nanogpt_attn_bwd      where(bias == 0, 0, attn * (d - sum(attn * d))) / 8, d = dy * keep / 0.8
  huggingface_attn      softmax((x + attention_mask).view(rows/16, 16, hidden)), dropout; (out, attn, keep)
  huggingface_attn_bwd  attn * (d - sum(attn * d)) on [rows/16, 16, hidden], viewed [1, rows/16, 16, hidden]
"""
import torch

DEVICE = "cuda"  # the check on a CPU host sets "cpu"
DROPOUT_P = 0.2
QUERIES = 16  # sweep-points.ts ATTENTION_QUERIES
HEAD_SIZE = 128  # sweep-points.ts ROPE_HEAD_SIZE
SCALE = 1.0 / 8.0  # 1 / sqrt(64): sweep-attention-definitions.ts SWEEP_ATTENTION_HEAD_SIZE


def causal_bias(keys):
    """[1, 1, 16, keys] f32: query q (the last 16 of the sequence) sees keys 0 .. keys - 16 + q."""
    q = torch.arange(QUERIES, device=DEVICE)[:, None]
    k = torch.arange(keys, device=DEVICE)[None, :]
    return (k <= keys - QUERIES + q).float().view(1, 1, QUERIES, keys)


def softmax_dropout_grad(dy, attn, keep):
    d = dy.float() * keep * (1.0 / (1.0 - DROPOUT_P))
    a = attn.float()
    return a * (d - (a * d).sum(-1, keepdim=True))


def make_model_family(point, dtype):
    """(fn, args) of a model-shaped family, or None when the point's family is not one of them."""
    rows, hidden = point["rows"], point["hidden"]
    family = point["family"]
    randn = lambda *s: torch.randn(*s, device=DEVICE, dtype=dtype)
    keep_scale = 1.0 / (1.0 - DROPOUT_P)
    if family == "group_norm_bwd":
        c, groups = 64, 32
        n = rows // c
        # aten takes the statistics in the input's dtype when the weight has it (tsfuser: f32).
        mean = torch.randn(n, groups, device=DEVICE).to(dtype)
        rstd = (torch.rand(n, groups, device=DEVICE) + 0.5).to(dtype)

        def gn_bwd(x, dy, w, mean, rstd):
            return torch.ops.aten.native_group_norm_backward(dy, x, mean, rstd, w, n, c, hidden, groups, [True, True, True])

        return gn_bwd, (randn(n, c, hidden), randn(n, c, hidden), randn(c), mean, rstd)
    if family == "rope":
        half = HEAD_SIZE // 2

        def rope(x, cos, sin):
            xf = x.float()
            rotated = torch.cat((-xf[..., half:], xf[..., :half]), dim=-1)
            return (xf * cos.float() + rotated * sin.float()).to(x.dtype)

        return rope, (randn(1, hidden // HEAD_SIZE, rows, HEAD_SIZE), randn(rows, HEAD_SIZE), randn(rows, HEAD_SIZE))
    if family == "rope_bwd":
        half = HEAD_SIZE // 2

        def rope_bwd(dy, cos, sin):
            dyf = dy.float()
            v = dyf * sin.float()
            return (dyf * cos.float() + torch.cat((v[..., half:], -v[..., :half]), dim=-1)).to(dy.dtype)

        return rope_bwd, (randn(1, hidden // HEAD_SIZE, rows, HEAD_SIZE), randn(rows, HEAD_SIZE), randn(rows, HEAD_SIZE))
    if family == "col_sum":
        return (lambda x: x.float().sum(0).to(x.dtype)), (randn(rows, hidden),)
    if family == "softmax_outer":
        return (lambda x: torch.softmax(x, dim=0)), (randn(rows, hidden),)
    if family == "softmax_bwd_outer":
        y = torch.softmax(torch.randn(rows, hidden, device=DEVICE), 0).to(dtype)
        return (lambda dy, y: torch.ops.aten._softmax_backward_data(dy, y, 0, dtype)), (randn(rows, hidden), y)
    if family == "cat":
        left = hidden // 2
        return (lambda a, b: torch.cat([a, b], -1)), (randn(rows, left), randn(rows, hidden - left))
    heads = rows // QUERIES
    if family == "nanogpt_attn":

        def nanogpt(x, bias):
            masked = bias == 0
            attn = torch.softmax((x.float() * SCALE).masked_fill(masked, float("-inf")), dim=-1)
            keep = torch.rand(attn.shape, device=attn.device) < 1 - DROPOUT_P
            return (attn * keep * keep_scale).to(x.dtype), keep, attn.to(x.dtype), masked.expand(x.shape)

        return nanogpt, (randn(1, heads, QUERIES, hidden), causal_bias(hidden))
    if family == "nanogpt_attn_bwd":

        def nanogpt_bwd(dy, attn, keep, masked):
            return (torch.where(masked, 0.0, softmax_dropout_grad(dy, attn, keep)) * SCALE).to(dy.dtype)

        keep = torch.rand(1, heads, QUERIES, hidden, device=DEVICE) < 1 - DROPOUT_P
        return nanogpt_bwd, (randn(1, heads, QUERIES, hidden), randn(1, heads, QUERIES, hidden), keep, causal_bias(hidden) == 0)
    if family == "huggingface_attn":

        def huggingface(mask, x):
            attn = torch.softmax((x.float() + mask.float()).view(heads, QUERIES, hidden), dim=-1)
            keep = torch.rand(attn.shape, device=attn.device) < 1 - DROPOUT_P
            return (attn * keep * keep_scale).to(x.dtype), attn.to(x.dtype), keep

        return huggingface, (randn(1, heads, QUERIES, hidden), randn(1, heads, QUERIES, hidden))
    if family == "huggingface_attn_bwd":

        def huggingface_bwd(dy, attn, keep):
            return softmax_dropout_grad(dy, attn, keep).view(1, heads, QUERIES, hidden).to(dy.dtype)

        keep = torch.rand(heads, QUERIES, hidden, device=DEVICE) < 1 - DROPOUT_P
        return huggingface_bwd, (randn(heads, QUERIES, hidden), randn(heads, QUERIES, hidden), keep)
    return None
