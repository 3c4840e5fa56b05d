#!/usr/bin/env python3
"""PyTorch's side of the GEMM comparison: times torch.matmul and F.linear (plain, and with
bias + gelu(tanh)) in bf16 for the shapes the device-gemm-suite times with tsfuser's cuBLASLt
library (packages/gpu-suites/device/gemm-suite.ts), with the same method: CUDA events around
each run, L2 flushed before every run by reading a 512 MiB buffer (as pytorch_bench.py's
default --flush read), 5 warm-up runs, the median of 20. Prints one table in the suite's format.

With --blas cublas,cublaslt every plain case is timed under each of PyTorch's BLAS backends
(torch.backends.cuda.preferred_blas_library): eager's default, cublasGemmEx, picks its kernel with
cuBLAS's own heuristics; "cublaslt" goes through cublasLtMatmulAlgoGetHeuristic's first result,
as tsfuser's GEMM segments do — the difference between the two is what the heuristic costs. The
backward's layouts of the GPT MLP (dgrad dY·W, wgrad dYᵀ·X) are timed with them.

Usage (on the GPU host, after the suite in the same call):
    python3 tools/bench/gemm_bench.py [--iters 20] [--json out.jsonl] [--blas cublas,cublaslt]
"""
import argparse
import json
import statistics

import torch
import torch.nn.functional as F

SHAPES = [(8192, 4096, 4096), (8192, 16384, 4096), (8192, 4096, 16384), (4096, 11008, 4096)]


def time_ms(fn, flush, iters, warmup=5):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        flush.sum()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def blas_rows(backends, flush, iters):
    """The plain GEMMs and the MLP backward's layouts under each BLAS backend, interleaved per shape."""
    layouts = [("linear", m, n, k) for m, n, k in SHAPES] + [("dgrad", 8192, 4096, 16384), ("wgrad", 16384, 4096, 8192)]
    rows = []
    for layout, m, n, k in layouts:
        if layout == "linear":
            a, b = torch.randn(m, k, dtype=torch.bfloat16, device="cuda"), torch.randn(n, k, dtype=torch.bfloat16, device="cuda")
            fn = lambda a=a, b=b: F.linear(a, b)
        elif layout == "dgrad":
            a, b = torch.randn(m, k, dtype=torch.bfloat16, device="cuda"), torch.randn(k, n, dtype=torch.bfloat16, device="cuda")
            fn = lambda a=a, b=b: torch.mm(a, b)
        else:
            a, b = torch.randn(k, m, dtype=torch.bfloat16, device="cuda"), torch.randn(k, n, dtype=torch.bfloat16, device="cuda")
            fn = lambda a=a, b=b: torch.mm(a.t(), b)
        for backend in backends:
            torch.backends.cuda.preferred_blas_library(backend)
            ms = time_ms(fn, flush, iters)
            rows.append({"shape": f"{m}x{n}x{k}", "impl": f"{backend} {layout}", "median_ms": ms, "tflops": 2 * m * n * k / (ms * 1e-3) / 1e12})
        torch.backends.cuda.preferred_blas_library("cublas")
        del a, b
        torch.cuda.empty_cache()
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--json", default=None)
    ap.add_argument("--blas", default=None, help="comma list of torch.backends.cuda.preferred_blas_library backends")
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    flush = torch.zeros(128 * 1024 * 1024, dtype=torch.float32, device="cuda")  # 512 MiB
    rows = []
    for m, n, k in SHAPES:
        x = torch.randn(m, k, dtype=torch.bfloat16, device="cuda")
        w = torch.randn(n, k, dtype=torch.bfloat16, device="cuda")
        wt = w.t().contiguous()
        b = torch.randn(n, dtype=torch.bfloat16, device="cuda")
        flops = 2 * m * n * k
        cases = [
            ("matmul", lambda: torch.matmul(x, wt)),
            ("linear", lambda: F.linear(x, w)),
            ("linear+bias+gelu", lambda: F.gelu(F.linear(x, w, b), approximate="tanh")),
        ]
        for label, fn in cases:
            ms = time_ms(fn, flush, args.iters)
            rows.append({"shape": f"{m}x{n}x{k}", "impl": f"torch {label}", "median_ms": ms, "tflops": flops / (ms * 1e-3) / 1e12})
        del x, w, wt, b
        torch.cuda.empty_cache()
    if args.blas:
        rows += blas_rows(args.blas.split(","), flush, args.iters)
    print(f"\nPyTorch {torch.__version__} bf16 (M x N x K, D = X·Wᵀ), median of {args.iters}, L2 flushed")
    for r in rows:
        print(f"{r['shape']:<18} {r['impl']:<24} {r['median_ms']:8.3f} ms {r['tflops']:7.1f} TFLOP/s")
    if args.json:
        with open(args.json, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
