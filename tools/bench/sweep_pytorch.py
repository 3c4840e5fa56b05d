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
  nvFuser benchmarks/python families (issue 38), p = 0.2, z = x2 + x1 * mask / (1 - p):
  dropout_layer_norm      (layer_norm(z), mean, invstd, mask), mask = rand < 0.8 drawn in the call
  dropout_layer_norm_bwd  (dx1, dx2, dw, db) from (mask, mean, invstd, dy, w, x1, x2), fp32 math
  dropout_rms_norm        (w * z / rms, mask, rms), rms = sqrt(mean(z^2) + 1e-5), mask drawn in the call
  dropout_rms_norm_bwd    (dx1, dx2, dw) from (x1, x2, mask, rms, dy, w), fp32 math
  silu_mul_bwd            (dy * silu(x), dy * y * silu'(x))
  scale_bias_relu_bwd     where(mask, dy, 0) * scale
  gelu_bwd_reduction_outer/_inner  (dy * gelu_tanh'(x + bias)).sum(0 / 1)
  broadcast_add_inner     x + b[:, None] (b: [rows])
  rms_norm_add            (w * h * rsqrt(mean(h^2) + 1e-5), h), h = x + residual
  batch_norm              aten.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5) on [N*H*W, C]
  batch_norm_bwd          aten.native_batch_norm_backward(dy, x, w, None, None, mean, invstd, True, 1e-5, [True]*3)
  cross_entropy           F.cross_entropy(logits.float(), labels) (labels: int64 [rows] in [0, hidden))
  transpose               torch.relu(x.t().contiguous()) ([hidden, rows] row-major)
  embedding               F.embedding(ids, table) (ids: int64 [rows], table: [32064, hidden])
  instance_norm(_bwd)     x [rows/16, 16, hidden]: aten.native_batch_norm(_backward) on the [1, N*C, H*W]
                          view with the weight repeated N times (what F.instance_norm runs)
  group_norm              F.group_norm(x [rows/64, 64, hidden], 32, w, b, 1e-5)
  group_norm_bwd, rope(_bwd), cat, nanogpt_attn(_bwd), huggingface_attn(_bwd), col_sum,
  softmax_outer, softmax_bwd_outer: sweep_pytorch_model.py

Writes one JSON object per line: {"name", "impl", "median_ms"} (or "error"), and {"copy_gbps"}.
Usage: python3 sweep_pytorch.py --points points.json [--iters N] [--out f.jsonl] [--no-compile]
"""
import argparse
import json
import statistics

import torch
import torch.nn.functional as F

from sweep_pytorch_model import make_model_family


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
    made = make_nvf_family(point, x)
    if made is None:
        made = make_model_family(point, dtype)
    if made is not None:
        return made
    raise ValueError(f"unknown family {family}")


DROPOUT_P = 0.2


def make_nvf_family(point, x):
    """The families of nvFuser's benchmarks/python added for issue 38 (None: not one of them)."""
    dtype = x.dtype
    rows, hidden = point["rows"], point["hidden"]
    family = point["family"]
    scale = 1.0 / (1.0 - DROPOUT_P)
    like = lambda: torch.randn(rows, hidden, device="cuda", dtype=dtype)
    col = lambda: torch.randn(hidden, device="cuda", dtype=dtype)
    mask = lambda: torch.rand(rows, hidden, device="cuda") < 1 - DROPOUT_P
    if family == "dropout_layer_norm":

        def dln(x1, x2, w, b):
            m = torch.rand(x1.shape, device=x1.device) < 1 - DROPOUT_P
            z = x2.float() + x1.float() * m * scale
            var, mean = torch.var_mean(z, -1, correction=0)
            invstd = torch.rsqrt(var + 1e-5)
            y = (z - mean[:, None]) * invstd[:, None] * w.float() + b.float()
            return y.to(x1.dtype), mean, invstd, m

        return dln, (x, like(), col(), col())
    if family == "dropout_layer_norm_bwd":
        mean = torch.randn(rows, device="cuda")
        invstd = torch.rand(rows, device="cuda") + 0.5

        def dln_bwd(m, mean, invstd, dy, w, x1, x2):
            z = x2.float() + x1.float() * m * scale
            xhat = (z - mean[:, None]) * invstd[:, None]
            dyf = dy.float()
            g = dyf * w.float()
            dz = invstd[:, None] * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
            return (dz * m * scale).to(dy.dtype), dz.to(dy.dtype), (dyf * xhat).sum(0).to(dy.dtype), dyf.sum(0).to(dy.dtype)

        return dln_bwd, (mask(), mean, invstd, x, col(), like(), like())
    if family == "dropout_rms_norm":

        def drms(x1, x2, w):
            m = torch.rand(x1.shape, device=x1.device) < 1 - DROPOUT_P
            z = x2.float() + x1.float() * m * scale
            rms = torch.sqrt(z.pow(2).mean(-1) + 1e-5)
            return (w.float() * z / rms[:, None]).to(x1.dtype), m, rms

        return drms, (x, like(), col())
    if family == "dropout_rms_norm_bwd":
        rms = torch.rand(rows, device="cuda") + 0.5

        def drms_bwd(x1, x2, m, rms, dy, w):
            z = x2.float() + x1.float() * m * scale
            r = rms[:, None]
            xhat = z / r
            dyf = dy.float()
            g = dyf * w.float()
            dz = (g - xhat * (g * xhat).mean(-1, keepdim=True)) / r
            return (dz * m * scale).to(dy.dtype), dz.to(dy.dtype), (dyf * xhat).sum(0).to(dy.dtype)

        return drms_bwd, (x, like(), mask(), rms, like(), col())
    if family == "silu_mul_bwd":

        def silu_mul_bwd(dy, a, b):
            dyf, af, bf = dy.float(), a.float(), b.float()
            s = torch.sigmoid(af)
            return (dyf * af * s).to(dy.dtype), (dyf * bf * s * (1 + af * (1 - s))).to(dy.dtype)

        return silu_mul_bwd, (x, like(), like())
    if family == "scale_bias_relu_bwd":
        return (lambda s, m, dy: (torch.where(m, dy.float(), 0.0) * s.float()).to(dy.dtype)), (col(), mask(), x)
    if family in ("gelu_bwd_reduction_outer", "gelu_bwd_reduction_inner"):
        axis = 0 if family.endswith("outer") else 1

        def gelu_bwd_red(x, dy, b):
            return (torch.ops.aten.gelu_backward(dy.float(), x.float() + b.float(), approximate="tanh")).sum(axis).to(x.dtype)

        return gelu_bwd_red, (x, like(), col())
    if family == "broadcast_add_inner":
        return (lambda b, x: x + b[:, None]), (torch.randn(rows, device="cuda", dtype=dtype), x)
    if family == "rms_norm_add":

        def rms_add(x, w, res):
            h = x.float() + res.float()
            return (w.float() * h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-5)).to(x.dtype), h.to(x.dtype)

        return rms_add, (x, col(), like())
    if family == "cross_entropy":
        labels = torch.randint(0, hidden, (rows,), device="cuda")
        return (lambda logits, labels: F.cross_entropy(logits.float(), labels)), (x, labels)
    if family == "transpose":
        return (lambda x: torch.relu(x.t().contiguous())), (x,)
    if family == "embedding":
        vocab = 32064  # sweep-movement-definitions.ts SWEEP_EMBEDDING_VOCAB
        ids = torch.randint(0, vocab, (rows,), device="cuda")
        return (lambda ids, table: F.embedding(ids, table)), (ids, torch.randn(vocab, hidden, device="cuda", dtype=dtype))
    if family in ("instance_norm", "instance_norm_bwd"):
        c = 16  # sweep-points.ts INSTANCE_NORM_CHANNELS
        n = rows // c
        x3 = x.view(n, c, hidden)
        w, b = torch.randn(c, device="cuda", dtype=dtype), torch.randn(c, device="cuda", dtype=dtype)
        if family == "instance_norm":

            def inorm(x, w, b):
                y, mean, invstd = torch.ops.aten.native_batch_norm(x.reshape(1, n * c, hidden), w.repeat(n), b.repeat(n), None, None, True, 0.1, 1e-5)
                return y.view(n, c, hidden), mean.view(n, c), invstd.view(n, c)

            return inorm, (x3, w, b)
        mean = torch.randn(n, c, device="cuda")
        invstd = torch.rand(n, c, device="cuda") + 0.5

        def inorm_bwd(x, dy, w, mean, invstd):
            dx, dw, db = torch.ops.aten.native_batch_norm_backward(
                dy.reshape(1, n * c, hidden), x.reshape(1, n * c, hidden), w.repeat(n), None, None, mean.view(-1), invstd.view(-1), True, 1e-5, [True, True, True]
            )
            return dx.view(n, c, hidden), dw.view(n, c).sum(0), db.view(n, c).sum(0)

        return inorm_bwd, (x3, torch.randn(n, c, hidden, device="cuda", dtype=dtype), w, mean, invstd)
    if family == "group_norm":
        c, groups = 64, 32  # sweep-points.ts GROUP_NORM_CHANNELS, sweep-batch-norm-definitions.ts
        w, b = torch.randn(c, device="cuda", dtype=dtype), torch.randn(c, device="cuda", dtype=dtype)
        return (lambda x, w, b: F.group_norm(x, groups, w, b, 1e-5)), (x.view(rows // c, c, hidden), w, b)
    if family == "batch_norm":
        return (lambda x, w, b: torch.ops.aten.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)), (x, col(), col())
    if family == "batch_norm_bwd":
        mean = torch.randn(hidden, device="cuda")
        invstd = torch.rand(hidden, device="cuda") + 0.5
        fn = lambda x, dy, w, mean, invstd: torch.ops.aten.native_batch_norm_backward(dy, x, w, None, None, mean, invstd, True, 1e-5, [True, True, True])
        return fn, (x, like(), col(), mean, invstd)
    return None


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
