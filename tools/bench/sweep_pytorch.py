#!/usr/bin/env python3
"""PyTorch side of `tsfuser bench --suite sweep`: times eager and torch.compile on the sweep points
tsfuser timed (given as JSON by the TypeScript side: family, dtype, rows, hidden, name), with the
same method as pytorch_bench.py (CUDA events, L2 flushed by reading a 512 MiB buffer before every
run, median after warm-up). torch.compile uses static shapes; dynamo is reset before each point so
the recompile limit never turns a point into eager.

Math per family (what the tsfuser definitions compute; fp32 math for bf16):
  softmax     torch.softmax(x, -1)
  layer_norm  F.layer_norm(x, (H,), w, b, 1e-5)
  rms_norm    (x.float() * rsqrt(mean(x.float()^2, -1) + 1e-6) * w.float()).to(dtype)
  row_sum     x.float().sum(-1).to(dtype)
  layer_norm_bwd  aten.native_layer_norm_backward(dy, x, [H], mean, rstd, w, b, [True]*3)
  gelu        F.gelu(x) (erf)
  silu_mul    F.silu(a) * b
  mul         a * b
  bias_add    x + b (b: [H])
  softmax_bwd aten._softmax_backward_data(dy, y, -1, dtype)
  rms_norm_bwd  (dx, dw) of y = x * rstd * w, in fp32 math (PyTorch has no aten op for it)
  gelu_bwd    aten.gelu_backward(dy, x) (erf)
  scale_bias_relu  relu(x * scale + bias) (scale, bias: [H])
  reduction_epilogue  (x.float().sum(-1) + e.float()).to(dtype) (e: [rows])

Writes one JSON object per line: {"name", "impl", "median_ms"} (or "error"), and {"copy_gbps"}.
Usage: python3 sweep_pytorch.py --points points.json [--iters N] [--out f.jsonl] [--no-compile]
"""
import argparse
import json
import statistics

import torch
import torch.nn.functional as F


def flush_l2(buf):
    buf.sum()


def time_fn(fn, args, iters, buf):
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


def make(point):
    dtype = torch.float32 if point["dtype"] == "Float" else torch.bfloat16
    rows, hidden = point["rows"], point["hidden"]
    x = torch.randn(rows, hidden, device="cuda", dtype=dtype)
    family = point["family"]
    if family == "softmax":
        return (lambda x: torch.softmax(x, dim=-1)), (x,)
    if family == "layer_norm":
        w = torch.randn(hidden, device="cuda", dtype=dtype)
        b = torch.randn(hidden, device="cuda", dtype=dtype)
        return (lambda x, w, b: F.layer_norm(x, (hidden,), w, b, 1e-5)), (x, w, b)
    if family == "rms_norm":
        w = torch.randn(hidden, device="cuda", dtype=dtype)

        def rms(x, w):
            xf = x.float()
            return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).to(x.dtype)

        return rms, (x, w)
    if family == "row_sum":
        return (lambda x: x.float().sum(-1).to(x.dtype)), (x,)
    if family == "layer_norm_bwd":
        dy = torch.randn(rows, hidden, device="cuda", dtype=dtype)
        mean = torch.randn(rows, 1, device="cuda")
        rstd = torch.rand(rows, 1, device="cuda") + 0.5
        w = torch.randn(hidden, device="cuda", dtype=dtype)
        b = torch.randn(hidden, device="cuda", dtype=dtype)
        fn = lambda dy, x, mean, rstd, w, b: torch.ops.aten.native_layer_norm_backward(dy, x, [hidden], mean, rstd, w, b, [True, True, True])
        return fn, (dy, x, mean, rstd, w, b)
    if family == "gelu":
        return (lambda x: F.gelu(x)), (x,)
    if family in ("silu_mul", "mul"):
        y = torch.randn(rows, hidden, device="cuda", dtype=dtype)
        return ((lambda a, b: F.silu(a) * b) if family == "silu_mul" else (lambda a, b: a * b)), (x, y)
    if family == "bias_add":
        b = torch.randn(hidden, device="cuda", dtype=dtype)
        return (lambda x, b: x + b), (x, b)
    if family == "softmax_bwd":
        y = torch.softmax(torch.randn(rows, hidden, device="cuda", dtype=torch.float32), -1).to(dtype)
        return (lambda dy, y: torch.ops.aten._softmax_backward_data(dy, y, -1, dtype)), (x, y)
    if family == "gelu_bwd":
        xx = torch.randn(rows, hidden, device="cuda", dtype=dtype)
        return (lambda dy, x: torch.ops.aten.gelu_backward(dy, x)), (x, xx)
    if family == "rms_norm_bwd":
        xx = torch.randn(rows, hidden, device="cuda", dtype=dtype)
        rstd = torch.rand(rows, device="cuda") + 0.5
        w = torch.randn(hidden, device="cuda", dtype=dtype)

        def rms_bwd(dy, x, rstd, w):
            dyf, xf, r = dy.float(), x.float(), rstd[:, None]
            xhat = xf * r
            g = dyf * w.float()
            dx = r * (g - xhat * (g * xhat).mean(-1, keepdim=True))
            return dx.to(dy.dtype), (dyf * xhat).sum(0).to(dy.dtype)

        return rms_bwd, (x, xx, rstd, w)
    if family == "scale_bias_relu":
        s = torch.randn(hidden, device="cuda", dtype=dtype)
        b = torch.randn(hidden, device="cuda", dtype=dtype)
        return (lambda x, s, b: torch.relu(x.float() * s.float() + b.float()).to(x.dtype)), (x, s, b)
    if family == "reduction_epilogue":
        e = torch.randn(rows, device="cuda", dtype=dtype)
        return (lambda x, e: (x.float().sum(-1) + e.float()).to(x.dtype)), (x, e)
    raise ValueError(f"unknown family {family}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", required=True)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-compile", action="store_true")
    a = ap.parse_args()
    out = open(a.out, "w") if a.out else None

    def emit(obj):
        line = json.dumps(obj)
        print(line, flush=True)
        if out:
            out.write(line + "\n")
            out.flush()

    flush = torch.zeros(512 * 1024 * 1024 // 4, dtype=torch.float32, device="cuda")
    src = torch.empty(256 * 1024 * 1024, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)
    ms = time_fn(lambda: dst.copy_(src), (), a.iters, flush)
    emit({"copy_gbps": 2 * src.numel() * 4 / (ms * 1e-3) / 1e9, "device": torch.cuda.get_device_name()})
    del src, dst
    for point in json.load(open(a.points)):
        name = point["name"]
        try:
            fn, args = make(point)
        except Exception as e:  # a size that does not fit: say so, go on
            emit({"name": name, "impl": "eager", "error": f"{type(e).__name__}: {e}"})
            continue
        impls = [("eager", fn)]
        if not a.no_compile:
            torch._dynamo.reset()
            impls.append(("torch.compile", torch.compile(fn, dynamic=False)))
        for impl, f in impls:
            try:
                emit({"name": name, "impl": impl, "median_ms": time_fn(f, args, a.iters, flush)})
            except Exception as e:
                emit({"name": name, "impl": impl, "error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"})
        del args
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
