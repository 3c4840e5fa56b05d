# Generates test-fixtures/torch-values/matmul.json and attention.json: PyTorch's values (and
# error messages) for torch.matmul, F.linear, torch._scaled_mm, torch._grouped_mm and
# F.scaled_dot_product_attention (forward and autograd backward) on seeded random inputs — the
# oracle of the reference evaluator's GEMM and attention ops (CI has no PyTorch, so the JSON is
# committed). Inputs are drawn in float32, rounded to the case's dtype, and stored as the
# rounded values; "expected" is PyTorch's result in the case's dtype (GEMMs) or in float64 from
# the rounded inputs (attention, whose reference computes in float64 and rounds once).
# Run: /work/torchvenv/bin/python tools/torch-values/matmul_attention_values.py
import json
import math
import pathlib

import torch
import torch.nn.functional as F

SEED = 20261201
DTYPES = {"Float": torch.float32, "Double": torch.float64, "Half": torch.float16, "BFloat16": torch.bfloat16,
          "Float8_e4m3fn": torch.float8_e4m3fn, "Float8_e5m2": torch.float8_e5m2, "Int32": torch.int32, "Bool": torch.bool}
ROOT = pathlib.Path(__file__).resolve().parents[2] / "test-fixtures" / "torch-values"
gen = torch.Generator().manual_seed(SEED)


def enc(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return v


def flat(t):
    t = t.contiguous().reshape(-1)
    if t.dtype == torch.bool:
        return [bool(x) for x in t.tolist()]
    if t.dtype in (torch.int32, torch.int64):
        return [int(x) for x in t.tolist()]
    return [enc(float(x)) for x in t.double().tolist()]


def rand(shape, dtype, scale=1.0):
    return (torch.randn(shape, generator=gen) * scale).to(DTYPES[dtype])


def err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the message is the fixture
        return str(e).split("\n")[0]
    raise AssertionError("expected an error")


def matmul_cases():
    shapes = [
        ([7], [7]), ([1], [1]), ([129], [129]), ([7], [7, 5]), ([5, 7], [7]), ([1, 1], [1, 1]), ([5, 7], [7, 3]),
        ([7, 129], [129, 1]), ([2, 5, 7], [7]), ([7], [2, 7, 3]), ([2, 5, 7], [7, 3]), ([5, 7], [2, 7, 3]),
        ([2, 5, 7], [2, 7, 3]), ([2, 1, 5, 7], [3, 7, 4]), ([1, 5, 7], [3, 7, 2]), ([3, 1, 4, 2], [1, 2, 2, 5]),
    ]
    cases = []
    for dtype in ["Float", "BFloat16", "Half"]:
        for a_shape, b_shape in shapes:
            a, b = rand(a_shape, dtype), rand(b_shape, dtype)
            out = torch.matmul(a, b)
            cases.append({"op": "matmul", "dtype": dtype, "a": {"shape": a_shape, "values": flat(a)}, "b": {"shape": b_shape, "values": flat(b)},
                          "outShape": list(out.shape), "expected": flat(out)})
    linear = [([7], [5, 7], [5]), ([4, 7], [5, 7], None), ([4, 7], [5, 7], [5]), ([2, 3, 7], [5, 7], [5]), ([4, 129], [7, 129], [7]),
              ([4, 7], [7], None), ([1, 1], [1, 1], [1]), ([4, 7], [5, 7], [1])]
    for dtype in ["Float", "BFloat16", "Half"]:
        for x_shape, w_shape, b_shape in linear:
            x, w = rand(x_shape, dtype), rand(w_shape, dtype)
            bias = None if b_shape is None else rand(b_shape, dtype)
            out = F.linear(x, w, bias)
            c = {"op": "linear", "dtype": dtype, "a": {"shape": x_shape, "values": flat(x)}, "b": {"shape": w_shape, "values": flat(w)},
                 "outShape": list(out.shape), "expected": flat(out)}
            if bias is not None:
                c["bias"] = {"shape": b_shape, "values": flat(bias)}
            cases.append(c)
    return cases


def matmul_errors():
    z = lambda s, d="Float": torch.zeros(s, dtype=DTYPES[d])  # noqa: E731
    mm = [([3], [4]), ([2, 3], [4]), ([3], [4, 5]), ([2, 3], [2, 3]), ([2, 2, 3], [2, 4, 5]), ([2, 2, 3], [3, 3, 5]),
          ([2, 2, 3], [4]), ([4], [2, 3, 5]), ([2, 3], [2, 4, 5]), ([2, 2, 3], [4, 5])]
    out = [{"op": "matmul", "a": a, "b": b, "dtypes": ["Float", "Float"], "message": err(lambda: torch.matmul(z(a), z(b)))} for a, b in mm]
    for a, b, da, db in [([2, 3], [3, 4], "Float", "BFloat16"), ([2, 3], [3, 4], "Half", "Double"), ([3], [3], "Half", "Double"),
                         ([2, 2, 3], [2, 3, 4], "Half", "Double"), ([2, 3], [3], "Half", "Double")]:
        out.append({"op": "matmul", "a": a, "b": b, "dtypes": [da, db], "message": err(lambda: torch.matmul(z(a, da), z(b, db)))})
    for x, w, bias in [([2, 3], [4, 5], None), ([7, 2, 3], [4, 5], None), ([2, 3], [5], None), ([3], [4, 5], None), ([2, 3], [4, 3], [5]),
                       ([7, 2, 3], [4, 3], [5])]:
        out.append({"op": "linear", "a": x, "b": w, "bias": bias, "dtypes": ["Float", "Float"],
                    "message": err(lambda: F.linear(z(x), z(w), None if bias is None else z(bias)))})
    out.append({"op": "linear", "a": [2, 3], "b": [4, 3], "bias": [4], "dtypes": ["Float", "Float", "BFloat16"],
                "message": err(lambda: F.linear(z([2, 3]), z([4, 3]), z([4], "BFloat16")))})
    return out


def scaled_mm_cases():
    cases = []
    for d1, d2, out_dtype, m, k, n, with_bias in [("Float8_e4m3fn", "Float8_e4m3fn", "BFloat16", 16, 32, 16, False),
                                                  ("Float8_e4m3fn", "Float8_e4m3fn", "Float", 32, 48, 16, False),
                                                  ("Float8_e4m3fn", "Float8_e5m2", "Float", 16, 16, 32, False),
                                                  ("Float8_e4m3fn", "Float8_e4m3fn", "BFloat16", 16, 32, 16, True)]:
        a = rand([m, k], d1)
        b = rand([n, k], d2).t()  # column-major, as cuBLASLt's fp8 path wants it
        sa = torch.tensor(0.5 + torch.rand((), generator=gen).item())
        sb = torch.tensor(0.25 + torch.rand((), generator=gen).item())
        bias = rand([n], "BFloat16") if with_bias else None
        out = torch._scaled_mm(a, b, sa, sb, bias=bias, out_dtype=DTYPES[out_dtype])
        c = {"op": "scaled_mm", "dtypes": [d1, d2], "outDtype": out_dtype, "a": {"shape": [m, k], "values": flat(a)},
             "b": {"shape": [k, n], "values": flat(b)}, "scale1": float(sa), "scale2": float(sb), "outShape": list(out.shape), "expected": flat(out)}
        if bias is not None:
            c["bias"] = {"shape": [n], "values": flat(bias)}
        cases.append(c)
    return cases


def grouped_mm_cases():
    cases = []
    bf = "BFloat16"
    # 2d x 3d: offsets cut M; 3d x 2d: offsets cut N; 2d x 2d: offsets cut K; 3d x 3d: no offsets
    for kind, a_shape, b_shape, offs in [("2d3d", [24, 16], [3, 16, 8], [5, 13, 24]), ("2d3d_uncovered", [24, 16], [3, 16, 8], [0, 8, 16]),
                                         ("3d2d", [3, 8, 16], [16, 24], [8, 16, 24]), ("2d2d", [8, 32], [32, 16], [8, 8, 32]),
                                         ("3d3d", [2, 8, 16], [2, 16, 8], None)]:
        a, b = rand(a_shape, bf), rand(b_shape, bf)
        o = None if offs is None else torch.tensor(offs, dtype=torch.int32)
        out = torch._grouped_mm(a, b, o)
        if kind == "2d3d_uncovered":
            out[16:] = 0  # PyTorch leaves rows no group covers uninitialized; tsfuser writes 0
        c = {"op": "grouped_mm", "kind": kind, "dtype": bf, "a": {"shape": a_shape, "values": flat(a)}, "b": {"shape": b_shape, "values": flat(b)},
             "outShape": list(out.shape), "expected": flat(out)}
        if offs is not None:
            c["offsets"] = offs
        cases.append(c)
    return cases


def sdpa_case(name, dtype, n, h, hkv, l, s, e, ev, causal=False, scale=None, bias=False, mask=None, batch=None):
    batch = batch or [n]
    q = rand([*batch, h, l, e], dtype)
    k = rand([*batch, hkv, s, e], dtype)
    v = rand([*batch, hkv, s, ev], dtype)
    b = rand([*batch[:-1], 1, h, l, s] if False else [*batch, h, l, s], dtype) if bias else None
    m = mask
    qd, kd, vd = (t.double().requires_grad_() for t in (q, k, v))
    attn = None
    if b is not None:
        attn = b.double()
    if m is not None:
        mb = torch.where(m, 0.0, -math.inf).double()
        attn = mb if attn is None else attn + mb
    scale_v = scale if scale is not None else 1 / math.sqrt(e)
    kk, vv = kd, vd
    if hkv != h:
        kk = kd.repeat_interleave(h // hkv, dim=-3)
        vv = vd.repeat_interleave(h // hkv, dim=-3)
    scores = torch.matmul(qd, kk.transpose(-2, -1)) * scale_v
    if attn is not None:
        scores = scores + attn
    if causal:
        scores = scores.masked_fill(~torch.ones(l, s, dtype=torch.bool).tril(), -math.inf)
    lse = torch.logsumexp(scores, -1)
    out = F.scaled_dot_product_attention(qd, kd, vd, attn_mask=attn, is_causal=causal, scale=scale, enable_gqa=hkv != h)
    probs = torch.softmax(scores, -1).nan_to_num(0.0)
    go = rand([*batch, h, l, ev], dtype)
    out.backward(go.double())
    c = {"name": name, "dtype": dtype, "batch": batch, "h": h, "hkv": hkv, "l": l, "s": s, "e": e, "ev": ev, "causal": causal, "scale": scale,
         "query": flat(q), "key": flat(k), "value": flat(v), "gradOutput": flat(go), "output": flat(out.detach()), "logsumexp": flat(lse.detach()),
         "gradQuery": flat(qd.grad), "gradKey": flat(kd.grad), "gradValue": flat(vd.grad), "probs": flat(probs.detach())}
    if b is None and m is None and e == ev:
        # PyTorch's flash-attention backward op (its CPU kernel, float64) on the saved output as the
        # fusion holds it — rounded to the inputs' dtype — and the Float logsumexp: D = rowsum(dO ∘ O)
        # comes from that output, as in the GPU flash backward that sdpfa_bwd stands for
        lead = [x for x in batch]
        flat4 = lambda t: t.reshape(-1, *t.shape[-3:])
        kk4, vv4 = flat4(kk.detach()), flat4(vv.detach())
        saved = out.detach().to(getattr(torch, {"BFloat16": "bfloat16", "Half": "float16", "Float": "float32"}[dtype])).double()
        # the CPU kernel reads logsumexp in the layout its forward returns ([N, L, H] in memory)
        lse_nlh = lse.detach().float().double().reshape(-1, h, l).transpose(1, 2).contiguous().transpose(1, 2)
        g = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward(
            flat4(go.double()), flat4(qd.detach()), kk4, vv4, flat4(saved), lse_nlh, 0.0, causal, scale=scale)
        gq, gk, gv = (x.reshape(*lead, *x.shape[-3:]) for x in g)
        if hkv != h:  # the repeated heads' grads summed back per kv head
            gk = gk.reshape(*lead, hkv, h // hkv, s, e).sum(-3)
            gv = gv.reshape(*lead, hkv, h // hkv, s, ev).sum(-3)
        c["flashGradQuery"], c["flashGradKey"], c["flashGradValue"] = flat(gq), flat(gk), flat(gv)
    if b is not None:
        c["bias"] = {"shape": list(b.shape), "values": flat(b)}
    if m is not None:
        c["mask"] = {"shape": list(m.shape), "values": flat(m)}
    return c


def attention_cases():
    cases = [
        sdpa_case("bf16_basic", "BFloat16", 2, 3, 3, 7, 7, 8, 8),
        sdpa_case("fp16_causal_square", "Half", 1, 2, 2, 9, 9, 16, 16, causal=True),
        sdpa_case("bf16_causal_l_lt_s", "BFloat16", 1, 2, 2, 3, 7, 8, 8, causal=True),
        sdpa_case("bf16_causal_l_gt_s", "BFloat16", 1, 1, 1, 7, 3, 8, 8, causal=True),
        sdpa_case("f32_scale_ev", "Float", 1, 2, 2, 5, 6, 8, 4, scale=0.3),
        sdpa_case("bf16_gqa", "BFloat16", 1, 4, 2, 5, 6, 8, 8),
        sdpa_case("bf16_gqa_causal_mqa", "BFloat16", 2, 4, 1, 6, 6, 8, 8, causal=True),
        sdpa_case("bf16_bias", "BFloat16", 1, 2, 2, 4, 5, 8, 8, bias=True),
        sdpa_case("f32_one_token", "Float", 1, 1, 1, 1, 1, 4, 4),
        sdpa_case("f32_5d_batch", "Float", 0, 2, 2, 3, 4, 4, 4, batch=[2, 2]),
        sdpa_case("bf16_long_s", "BFloat16", 1, 1, 1, 2, 129, 8, 8),
    ]
    m = torch.ones(1, 2, 4, 5, dtype=torch.bool)
    m[0, :, 1, :] = False  # a fully masked row
    m[0, 1, 2, 3:] = False
    cases.append(sdpa_case("bf16_mask_fully_masked_row", "BFloat16", 1, 2, 2, 4, 5, 8, 8, mask=m))
    mb = torch.rand(1, 1, 4, 5, generator=gen) > 0.3  # broadcast over heads
    mb[0, 0, :, 0] = True
    cases.append(sdpa_case("bf16_mask_broadcast_heads", "BFloat16", 1, 2, 2, 4, 5, 8, 8, mask=mb))
    return cases


def main():
    ROOT.mkdir(parents=True, exist_ok=True)
    mm = {"generator": f"torch {torch.__version__}: tools/torch-values/matmul_attention_values.py (seed {SEED})",
          "cases": matmul_cases(), "errors": matmul_errors(), "scaledMm": scaled_mm_cases(), "groupedMm": grouped_mm_cases()}
    (ROOT / "matmul.json").write_text(json.dumps(mm) + "\n")
    at = {"generator": f"torch {torch.__version__}: tools/torch-values/matmul_attention_values.py (seed {SEED}); float64 F.scaled_dot_product_attention "
                       "and autograd on the rounded inputs; logsumexp and probs from the float64 scores; flashGrad*: aten._scaled_dot_product_flash_attention_for_cpu_backward "
                       "(float64) on the output rounded to the inputs' dtype and the Float logsumexp", "cases": attention_cases()}
    (ROOT / "attention.json").write_text(json.dumps(at) + "\n")


if __name__ == "__main__":
    main()
