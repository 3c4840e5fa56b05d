#!/usr/bin/env python3
"""PyTorch side of tsfuser's benchmarks: times eager and torch.compile on the same workloads
that `tsfuser bench` runs, on the same GPU, and measures the device-to-device copy bandwidth
that the "% of copy floor" column refers to.

Method (the same as tsfuser's bench): CUDA events around each run, the L2 flushed before every
run by reading (--flush read, the default: a sum) or writing (--flush write: zero_) a buffer
larger than L2, median over many runs after warm-up. A write flush leaves L2 full of dirty lines
that the timed run must write back (~7 us on an H100), so both sides must flush the same way.

Prints one JSON object per line: {"workload", "impl", "median_ms", "bytes", "gbps"} and a
{"copy_gbps": …} line. Usage: python3 pytorch_bench.py [--workloads a,b] [--iters N] [--out f.jsonl]
"""
import argparse
import json
import statistics
import sys
import time

import torch

WORKLOADS = {}


def workload(name):
    def register(fn):
        WORKLOADS[name] = fn
        return fn
    return register


@workload("readme_pointwise")
def readme_pointwise():
    # nvFuser README example scaled up, pointwise part: (t0 + t1) * 3
    t0 = torch.randn(64, 1, 8192, device="cuda")
    t1 = torch.randn(64, 512, 8192, device="cuda")
    fn = lambda a, b: (a + b) * 3.0
    out_bytes = t1.numel() * 4
    return fn, (t0, t1), t0.numel() * 4 + t1.numel() * 4 + out_bytes


@workload("bn_add_relu")
def bn_add_relu():
    # Seed exercise: two inference batch norms, add, relu on 8x256x56x56 f32.
    x = torch.randn(8, 256, 56, 56, device="cuda")
    y = torch.randn(8, 256, 56, 56, device="cuda")
    p = [torch.rand(256, device="cuda") + 0.5 for _ in range(8)]

    def fn(x, y, w0, b0, m0, v0, w1, b1, m1, v1):
        a = torch.nn.functional.batch_norm(x, m0, v0, w0, b0, False, 0.1, 1e-5)
        b = torch.nn.functional.batch_norm(y, m1, v1, w1, b1, False, 0.1, 1e-5)
        return torch.relu(a + b)

    return fn, (x, y, *p), 3 * x.numel() * 4 + 8 * 256 * 4


def _norm_inputs(dtype):
    return torch.randn(16384, 4096, device="cuda", dtype=dtype)


for _dt_name, _dt in (("f32", torch.float32), ("bf16", torch.bfloat16)):
    def _make_ln(dt=_dt):
        x = _norm_inputs(dt)
        w = torch.randn(4096, device="cuda", dtype=dt)
        b = torch.randn(4096, device="cuda", dtype=dt)
        fn = lambda x, w, b: torch.nn.functional.layer_norm(x, (4096,), w, b, 1e-5)
        return fn, (x, w, b), 2 * x.numel() * x.element_size()

    def _make_softmax(dt=_dt):
        x = _norm_inputs(dt)
        fn = lambda x: torch.softmax(x, dim=-1)
        return fn, (x,), 2 * x.numel() * x.element_size()

    WORKLOADS[f"layer_norm_{_dt_name}"] = _make_ln
    WORKLOADS[f"softmax_{_dt_name}"] = _make_softmax


@workload("dropout_residual_layer_norm_bf16")
def dropout_residual_layer_norm_bf16():
    # Issue 24: layer_norm(dropout(x, p=0.1) + residual) with weight and bias, [16384, 4096] bf16,
    # dropout in training mode (a fresh mask each call, as tsfuser draws one in the kernel).
    # Written as a PyTorch user writes it (bf16 tensors; eager rounds the dropout and the add to
    # bf16, tsfuser and Inductor keep fp32 in between). bytes: x, residual, weight, bias read and
    # y written; the mask is not materialized (eager's F.dropout does write one: its cost).
    x = _norm_inputs(torch.bfloat16)
    residual = _norm_inputs(torch.bfloat16)
    w = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    F = torch.nn.functional
    fn = lambda x, r, w, b: F.layer_norm(F.dropout(x, p=0.1, training=True) + r, (4096,), w, b, 1e-5)
    return fn, (x, residual, w, b), (3 * x.numel() + 2 * 4096) * 2
@workload("rms_norm_bf16")
def rms_norm_bf16():
    x = _norm_inputs(torch.bfloat16)
    w = torch.randn(4096, device="cuda", dtype=torch.bfloat16)

    def fn(x, w):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).to(torch.bfloat16)

    return fn, (x, w), 2 * x.numel() * 2


for _dt_name, _dt in (("f32", torch.float32), ("bf16", torch.bfloat16)):
    def _make_ln_bwd(dt=_dt):
        # aten's layer_norm backward (what autograd calls; Inductor decomposes it), all three grads.
        dy = _norm_inputs(dt)
        x = _norm_inputs(dt)
        mean = torch.randn(16384, 1, device="cuda")
        rstd = torch.rand(16384, 1, device="cuda") + 0.5
        w = torch.randn(4096, device="cuda", dtype=dt)
        b = torch.randn(4096, device="cuda", dtype=dt)
        fn = lambda dy, x, mean, rstd, w, b: torch.ops.aten.native_layer_norm_backward(dy, x, [4096], mean, rstd, w, b, [True, True, True])
        e = x.element_size()
        return fn, (dy, x, mean, rstd, w, b), 3 * x.numel() * e + 2 * 16384 * 4 + 3 * 4096 * e

    WORKLOADS[f"layer_norm_bwd_{_dt_name}"] = _make_ln_bwd


@workload("pow_sum")
def pow_sum():
    t4 = torch.randn(16, 512, 4096, device="cuda")
    t6 = torch.randn(16, 512, 4096, device="cuda")
    fn = lambda a, b: (a.sum(dim=(0, 1)), b.pow(3.0))
    return fn, (t4, t6), (3 * t4.numel() + 4096) * 4


@workload("gelu_bias_grad")
def gelu_bias_grad():
    # nvFuser issue #785's fusion (gelu backward + bias grad), op for op as its definition;
    # scalars S0..S3 = 1, 2, 3, 4 as in test-fixtures/definitions/issue785_gelu_bias_grad.py.
    t4 = torch.randn(16, 512, 4096, device="cuda")
    t5 = torch.randn(16, 512, 4096, device="cuda")
    t6 = torch.randn(16, 512, 4096, device="cuda")
    s0, s1, s2, s3 = 1.0, 2.0, 3.0, 4.0

    def fn(t4, t5, t6):
        t8 = 0.5 * t6
        t16 = torch.tanh(0.797885 * (t6 + 0.044715 * t6.pow(3.0)))
        t18 = 1.0 + t16
        t19 = t4.sum(dim=(0, 1))
        t20 = t5 * t18
        t30 = (t5 * t8) * (1.0 - t16 * t16) * s3
        t32 = t30 * s2 * s1
        t38 = t30 + t32 * t6.pow(2.0) + t20 * s0
        return t19, t38

    return fn, (t4, t5, t6), (4 * t4.numel() + 4096) * 4


@workload("cat3_dim0_bf16")
def cat3_dim0_bf16():
    xs = tuple(torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    return (lambda a, b, c: torch.cat((a, b, c), 0)), xs, 2 * 3 * xs[0].numel() * 2


@workload("cat3_dim1_bf16")
def cat3_dim1_bf16():
    xs = tuple(torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    return (lambda a, b, c: torch.cat((a, b, c), 1)), xs, 2 * 3 * xs[0].numel() * 2


@workload("pad_bf16")
def pad_bf16():
    x = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16)
    return (lambda t: torch.nn.functional.pad(t, (8, 8, 1, 1))), (x,), (x.numel() + 8194 * 4112) * 2


@workload("rope_bf16")
def rope_bf16():
    # Rotate-half RoPE as packages/tsfuser/src/bench/resize-workloads.ts defines it: in float,
    # rounded to bf16 once at the end.
    x = torch.randn(8, 4096, 32, 128, device="cuda", dtype=torch.bfloat16)
    cos = torch.randn(1, 4096, 1, 128, device="cuda", dtype=torch.bfloat16)
    sin = torch.randn(1, 4096, 1, 128, device="cuda", dtype=torch.bfloat16)

    def fn(x, cos, sin):
        xf = x.float()
        rotated = torch.cat((-xf[..., 64:], xf[..., :64]), -1)
        return (xf * cos.float() + rotated * sin.float()).to(torch.bfloat16)

    return fn, (x, cos, sin), (2 * x.numel() + 2 * cos.numel()) * 2


@workload("transpose_f32")
def transpose_f32():
    # As packages/tsfuser/src/bench/transpose-workloads.ts: the transposed tensor written row-major.
    x = torch.randn(16384, 4096, device="cuda", dtype=torch.float32)
    return (lambda t: t.t().contiguous()), (x,), 2 * x.numel() * 4


@workload("transpose_bf16")
def transpose_bf16():
    x = torch.randn(16384, 4096, device="cuda", dtype=torch.bfloat16)
    return (lambda t: t.t().contiguous()), (x,), 2 * x.numel() * 2


@workload("permute_bshd_bf16")
def permute_bshd_bf16():
    # Attention head merge [B, H, S, D] -> [B, S, H, D], B=8 H=32 S=4096 D=128.
    x = torch.randn(8, 32, 4096, 128, device="cuda", dtype=torch.bfloat16)
    return (lambda t: t.permute(0, 2, 1, 3).contiguous()), (x,), 2 * x.numel() * 2
@workload("reshape_layer_norm_prologue_bf16")
def reshape_layer_norm_prologue_bf16():
    # Issue 20, as packages/tsfuser/src/bench/reshape-workloads.ts defines it: the attention
    # prologue's reshape [8, 4096, 32*128] -> [32768, 4096], layer_norm with weight and bias in
    # float32, rounded to bf16, reshaped back. bytes: x read, the output written, weight and bias.
    x = torch.randn(8, 4096, 32 * 128, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, device="cuda", dtype=torch.bfloat16)

    def fn(x, w, b):
        rows = x.reshape(8 * 4096, 4096).float()
        y = torch.nn.functional.layer_norm(rows, (4096,), w.float(), b.float(), 1e-5)
        return y.to(torch.bfloat16).reshape(8, 4096, 4096)

    return fn, (x, w, b), (2 * x.numel() + 2 * w.numel()) * 2


@workload("embedding_bf16")
def embedding_bf16():
    # Issue 24: embedding lookup of 8192 token ids in a [128256, 4096] bf16 table (Llama 3's
    # vocabulary); bytes: the looked-up rows read, the output written, the ids read.
    ids = torch.randint(0, 128256, (8192,), device="cuda", dtype=torch.int64)
    table = torch.randn(128256, 4096, device="cuda", dtype=torch.bfloat16)
    fn = lambda i, w: torch.nn.functional.embedding(i, w)
    return fn, (ids, table), 2 * 8192 * 4096 * 2 + 8192 * 8


@workload("cumsum_f32")
def cumsum_f32():
    # issue #24: cumsum over rows of [16384, 4096] f32 (tsfuser: tsfuser-scan-sort-suite's timing).
    x = torch.randn(16384, 4096, device="cuda")
    return (lambda a: torch.cumsum(a, dim=1)), (x,), 2 * x.numel() * 4


@workload("topk8_f32")
def topk8_f32():
    # issue #24: topk(k=8) over rows of [16384, 256] f32: values (f32) and indices (int64).
    x = torch.randn(16384, 256, device="cuda")
    return (lambda a: torch.topk(a, 8, dim=1)), (x,), x.numel() * 4 + 16384 * 8 * (4 + 8)


FLUSH_MODE = "read"


# GEMMs (issue 33), as packages/tsfuser/src/bench/gemm-workloads.ts defines them: bf16
# F.linear at M x N x K, linear + bias + gelu(tanh), and the GPT MLP block forward (tokens 8192,
# hidden 4096, ffn 16384). bytes: inputs read once, outputs written once; tsfuser bench adds
# TFLOP/s from the workload's flops.
def _gemm_workload(m, n, k):
    def make():
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        return (lambda x, w: torch.nn.functional.linear(x, w)), (x, w), (m * k + n * k + m * n) * 2
    return make


for _m, _n, _k in [(8192, 4096, 4096), (8192, 16384, 4096), (8192, 4096, 16384), (4096, 11008, 4096)]:
    WORKLOADS[f"gemm_bf16_{_m}x{_n}x{_k}"] = _gemm_workload(_m, _n, _k)


# A linear's data and weight gradients at the GPT MLP's shapes (gemm-workloads.ts backwardGemm):
# dgrad torch.mm(dy [m,k], W [k,n]); wgrad torch.mm(dy.t(), x), dy [k,m] read transposed.
def _backward_gemm_workload(kind, m, n, k):
    def make():
        a = torch.randn((m, k) if kind == "dgrad" else (k, m), device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        fn = (lambda a, b: torch.mm(a, b)) if kind == "dgrad" else (lambda a, b: torch.mm(a.t(), b))
        return fn, (a, b), (m * k + n * k + m * n) * 2
    return make


WORKLOADS["gemm_bf16_dgrad_8192x4096x16384"] = _backward_gemm_workload("dgrad", 8192, 4096, 16384)
WORKLOADS["gemm_bf16_wgrad_16384x4096x8192"] = _backward_gemm_workload("wgrad", 16384, 4096, 8192)


@workload("linear_bias_gelu_bf16")
def linear_bias_gelu_bf16():
    m, n, k = 8192, 16384, 4096
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    fn = lambda x, w, b: torch.nn.functional.gelu(torch.nn.functional.linear(x, w, b), approximate="tanh")
    return fn, (x, w, b), (m * k + n * k + n + m * n) * 2


@workload("gpt_mlp_fwd_bf16")
def gpt_mlp_fwd_bf16():
    t, h, f = 8192, 4096, 16384
    x = torch.randn(t, h, device="cuda", dtype=torch.bfloat16)
    w1 = torch.randn(f, h, device="cuda", dtype=torch.bfloat16) * 0.02
    b1 = torch.randn(f, device="cuda", dtype=torch.bfloat16)
    w2 = torch.randn(h, f, device="cuda", dtype=torch.bfloat16) * 0.02
    b2 = torch.randn(h, device="cuda", dtype=torch.bfloat16)

    def fn(x, w1, b1, w2, b2):
        u = torch.nn.functional.gelu(torch.nn.functional.linear(x, w1, b1), approximate="tanh")
        return torch.nn.functional.linear(u, w2, b2)

    return fn, (x, w1, b1, w2, b2), (t * h + 2 * f * h + f + h + t * h) * 2


# gpt_mlp_bwd_bf16: the MLP's backward alone, as gemm-workloads.ts times its one definition
# (gpt-mlp-backward.ts): the forward runs once, untimed, saving what autograd saves (x, W1, h,
# gelu(h), W2); each timed run is torch.autograd.grad of its output for dx, dW1, db1, dW2, db2
# (retain_graph=True keeps the saved tensors for the next run). torch.compile compiles the
# forward and, through AOTAutograd, this backward. bytes: those inputs and dy read once, the
# grads written once.
@workload("gpt_mlp_bwd_bf16")
def gpt_mlp_bwd_bf16():
    t, h, f = 8192, 4096, 16384
    bf16 = torch.bfloat16
    x = torch.randn(t, h, device="cuda", dtype=bf16, requires_grad=True)
    w1 = (torch.randn(f, h, device="cuda", dtype=bf16) * 0.02).requires_grad_()
    b1 = torch.randn(f, device="cuda", dtype=bf16, requires_grad=True)
    w2 = (torch.randn(h, f, device="cuda", dtype=bf16) * 0.02).requires_grad_()
    b2 = torch.randn(h, device="cuda", dtype=bf16, requires_grad=True)
    dy = torch.randn(t, h, device="cuda", dtype=bf16)
    params = (x, w1, b1, w2, b2)

    def mlp(x, w1, b1, w2, b2):
        u = torch.nn.functional.gelu(torch.nn.functional.linear(x, w1, b1), approximate="tanh")
        return torch.nn.functional.linear(u, w2, b2)

    def backward_of(model):
        y = model(*params)  # the saved forward, outside the timing

        def fn(dy):
            return torch.autograd.grad(y, params, dy, retain_graph=True)
        return fn

    fn = backward_of(mlp)
    fn.torch_compile = lambda: backward_of(torch.compile(mlp))
    saved = t * h + f * h + 2 * t * f + h * f
    grads = t * h + f * h + f + h * f + h
    return fn, (dy,), (saved + t * h + grads) * 2


# The LLaMA decoder block (issue 35), as packages/tsfuser/src/bench/llama-block-workloads.ts
# times it: the nn.Module of tools/bench/llama_block.py (HF LlamaDecoderLayer's math) in bf16 at
# a LLaMA-7B layer (B2 T2048 D4096 H32 E128 ffn 11008; --llama-size small: B2 T16 D64 H4 E16
# ffn 160, to check the script on a CPU). llama_block_fwd_bf16: inference forward under
# torch.no_grad(); llama_block_bwd_bf16: a training step, the forward then out.backward(dy)
# (grads of x and of every weight; torch.compile compiles the forward and, through
# AOTAutograd, the backward). bytes as the TS workloads count them; tsfuser bench adds TFLOP/s.
DEVICE = "cuda"
LLAMA_SIZE = "7b"


def _llama_config():
    import llama_block
    if LLAMA_SIZE == "7b":
        return dict(llama_block.CONFIG_7B)
    return dict(batch=2, seq=16, hidden=64, heads=4, kv_heads=4, head_dim=16, ffn=160, eps=1e-6)


def _llama_setup(training):
    import llama_block
    c = _llama_config()
    block = llama_block.init_block(llama_block.LlamaBlock(**c)).to(device=DEVICE, dtype=torch.bfloat16)
    cos, sin = llama_block.rope_tables(c["seq"], c["head_dim"], torch.bfloat16, DEVICE)
    x = torch.randn(c["batch"], c["seq"], c["hidden"], device=DEVICE, dtype=torch.bfloat16, requires_grad=training)
    tokens, e = c["batch"] * c["seq"], c["head_dim"]
    weights = sum(p.numel() for p in block.parameters()) * 2
    io = (2 * tokens * c["hidden"] + 2 * c["seq"] * e) * 2 + weights
    return block, c, x, cos, sin, tokens, io, weights


@workload("llama_block_fwd_bf16")
def llama_block_fwd_bf16():
    block, _c, x, cos, sin, _t, io, _w = _llama_setup(training=False)

    def fn(x, cos, sin):
        with torch.no_grad():
            return block(x, cos, sin)

    return fn, (x, cos, sin), io


@workload("llama_block_bwd_bf16")
def llama_block_bwd_bf16():
    block, c, x, cos, sin, tokens, io, weights = _llama_setup(training=True)
    dy = torch.randn(c["batch"], c["seq"], c["hidden"], device=DEVICE, dtype=torch.bfloat16)

    def step(model):
        def fn(x, cos, sin, dy):
            x.grad = None
            block.zero_grad(set_to_none=True)
            model(x, cos, sin).backward(dy)
        return fn

    fn = step(block)
    # torch.compile of the module (not of the step: the grad resets and backward() stay eager).
    fn.torch_compile = lambda: step(torch.compile(block))

    # The saved activations of the TS training forward, written once and read once
    # (llama-block-workloads.ts llamaSavedShapes): rstd x2, n1, q, k, v, o, lse, h, n2, gate, up, m.
    hq, hkv = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"]
    saved = (2 * tokens * 4 + tokens * (3 * c["hidden"] + 2 * hq + 2 * hkv + 3 * c["ffn"]) * 2
             + tokens * c["heads"] * 4 + 24)
    # forward: inputs read, y + saved written; backward: dy, inputs, saved read, dx + weight grads written.
    return fn, (x, cos, sin, dy), 2 * io + tokens * c["hidden"] * 2 + 2 * saved + weights


def flush_l2(buf):
    if FLUSH_MODE == "read":
        buf.sum()
    else:
        buf.zero_()


def time_fn(fn, args, iters, buf):
    if DEVICE == "cpu":
        return time_fn_cpu(fn, args, iters)
    for _ in range(3):
        fn(*args)
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        flush_l2(buf)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*args)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def time_fn_cpu(fn, args, iters):
    """--device cpu (a check that the workloads run, no GPU): wall-clock median, nothing to flush."""
    for _ in range(2):
        fn(*args)
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        fn(*args)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def host_overhead_us(calls=2000, batches=7):
    t0 = torch.randn(2, 4, 8, device="cuda")
    t1 = torch.randn(2, 4, 8, device="cuda")
    for _ in range(100):
        (t0 + t1) * 3.0
    torch.cuda.synchronize()
    per_call = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(calls):
            (t0 + t1) * 3.0
        torch.cuda.synchronize()
        per_call.append((time.perf_counter() - start) * 1e6 / calls)
    return statistics.median(per_call)


def copy_bandwidth(buf_flush, iters):
    src = torch.empty(256 * 1024 * 1024, dtype=torch.float32, device="cuda")  # 1 GiB
    dst = torch.empty_like(src)
    ms = time_fn(lambda: dst.copy_(src), (), iters, buf_flush)
    return 2 * src.numel() * 4 / (ms * 1e-3) / 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--out", default=None)
    ap.add_argument("--flush", choices=["read", "write"], default="read")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--host-overhead", action="store_true",
                    help="also time eager (t0 + t1) * 3 on 2x4x8 back to back: host microseconds per call")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                    help="cpu: only the llama_block_* workloads, timed by the wall clock (checks the script without a GPU)")
    ap.add_argument("--llama-size", choices=["7b", "small"], default="7b",
                    help="llama_block_* at a LLaMA-7B layer (default) or B2 T16 D64 H4 E16 ffn 160")
    a = ap.parse_args()
    global FLUSH_MODE, DEVICE, LLAMA_SIZE
    FLUSH_MODE = a.flush
    DEVICE = a.device
    LLAMA_SIZE = a.llama_size
    out = open(a.out, "w") if a.out else None

    def emit(obj):
        line = json.dumps(obj)
        print(line, flush=True)
        if out:
            out.write(line + "\n")
            out.flush()

    if DEVICE == "cpu":
        flush = None
        names = [n for n in a.workloads.split(",") if n.startswith("llama_block_")]
        a.workloads = ",".join(names)
    else:
        flush = torch.zeros(512 * 1024 * 1024 // 4, dtype=torch.float32, device="cuda")
        emit({"copy_gbps": copy_bandwidth(flush, a.iters), "device": torch.cuda.get_device_name()})
    if a.host_overhead and DEVICE == "cuda":
        emit({"host_overhead_us": host_overhead_us(), "what": "eager (t0 + t1) * 3 on 2x4x8 f32"})
    for name in a.workloads.split(","):
        if name not in WORKLOADS:
            print(f"unknown workload {name}", file=sys.stderr)
            continue
        fn, args, nbytes = WORKLOADS[name]()
        impls = [("eager", fn)]
        if not a.no_compile:
            impls.append(("torch.compile", fn.torch_compile() if hasattr(fn, "torch_compile") else torch.compile(fn)))
        for impl, f in impls:
            ms = time_fn(f, args, a.iters, flush)
            emit({"workload": name, "impl": impl, "median_ms": ms, "bytes": nbytes,
                  "gbps": nbytes / (ms * 1e-3) / 1e9})


if __name__ == "__main__":
    main()
