#!/usr/bin/env python3
"""Per-kernel breakdown of what PyTorch runs for a pytorch_bench.py workload — eager and
torch.compile, the same callables `tsfuser bench` is compared with — so that a tsfuser plan that
is behind can be read kernel by kernel beside the one it loses to (`tsfuser bench --profile`
prints tsfuser's side in the same classes).

Usage (GPU host): python3 tools/bench/torch_profile.py llama_block_bwd_bf16,gpt_mlp_bwd_bf16
    [--impl eager,torch.compile] [--steps 5] [--top 25] [--json out.jsonl]
Check on a CPU: python3 tools/bench/torch_profile.py llama_block_bwd_bf16 --device cpu --llama-size small

Each workload runs 3 warm-up steps (torch.compile compiles there), then `--steps` steps under
torch.profiler; kernel times are the profiler's device times divided by the steps. A kernel is
classed as GEMM (cuBLAS / cuBLASLt / CUTLASS names), attention (flash / cuDNN / efficient
attention names), Triton (Inductor's generated kernels) or other (ATen's own kernels, copies).
The SDPA backends PyTorch has enabled are printed first: which one a step used shows in the
attention kernels' names.
"""
import argparse
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.profiler  # noqa: E402

import pytorch_bench  # noqa: E402

GEMM_MARKS = ("gemm", "cutlass", "nvjet", "xmma", "cublas", "sm90_", "sm80_", "aten::mm", "aten::addmm", "aten::bmm")
ATTENTION_MARKS = ("flash", "fmha", "cudnn", "attention", "attn", "sdpa")


def kernel_class(name):
    low = name.lower()
    if any(m in low for m in ATTENTION_MARKS):
        return "attention"
    if low.startswith("triton") or "triton_" in low:
        return "triton"
    if any(m in low for m in GEMM_MARKS):
        return "gemm"
    return "other"


def device_time_us(event):
    # torch 2.x names the field device_time_total (older: cuda_time_total); CPU runs report cpu time.
    for field in ("self_device_time_total", "self_cuda_time_total", "device_time_total", "cuda_time_total"):
        value = getattr(event, field, None)
        if value:
            return float(value)
    return 0.0


def profile(fn, args, steps, device):
    for _ in range(3):
        fn(*args)
    if device == "cuda":
        torch.cuda.synchronize()
        activities = [torch.profiler.ProfilerActivity.CUDA]
    else:
        activities = [torch.profiler.ProfilerActivity.CPU]
    with torch.profiler.profile(activities=activities) as prof:
        for _ in range(steps):
            fn(*args)
        if device == "cuda":
            torch.cuda.synchronize()
    rows = defaultdict(lambda: {"us": 0.0, "calls": 0})
    for ev in prof.key_averages():
        if device == "cuda":
            us = device_time_us(ev)
            if us <= 0 or ev.device_type != torch.autograd.DeviceType.CUDA:
                continue
        else:
            if not ev.key.startswith("aten::"):
                continue
            us = float(ev.self_cpu_time_total)
        rows[ev.key]["us"] += us / steps
        rows[ev.key]["calls"] += ev.count / steps
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("workloads")
    ap.add_argument("--impl", default="eager,torch.compile")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--json", default=None)
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--llama-size", choices=["7b", "small"], default="7b")
    a = ap.parse_args()
    pytorch_bench.DEVICE = a.device
    pytorch_bench.LLAMA_SIZE = a.llama_size
    out = open(a.json, "w") if a.json else None
    if a.device == "cuda":
        b = torch.backends.cuda
        enabled = {name: getattr(b, f"{name}_sdp_enabled")() for name in ("flash", "mem_efficient", "math", "cudnn")
                   if hasattr(b, f"{name}_sdp_enabled")}
        print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}; SDPA backends enabled: {enabled}")
    for name in a.workloads.split(","):
        if name not in pytorch_bench.WORKLOADS:
            print(f"torch_profile: unknown workload {name!r} (pytorch_bench.py lists {len(pytorch_bench.WORKLOADS)})", file=sys.stderr)
            sys.exit(2)
        fn, args, _ = pytorch_bench.WORKLOADS[name]()
        for impl in a.impl.split(","):
            if impl == "eager":
                f = fn
            elif impl == "torch.compile":
                f = fn.torch_compile() if hasattr(fn, "torch_compile") else torch.compile(fn)
            else:
                print(f"torch_profile: unknown impl {impl!r} (eager, torch.compile)", file=sys.stderr)
                sys.exit(2)
            rows = profile(f, args, a.steps, a.device)
            total = sum(r["us"] for r in rows.values())
            by_class = defaultdict(lambda: [0.0, 0.0])
            for key, r in rows.items():
                c = by_class[kernel_class(key)]
                c[0] += r["us"]
                c[1] += r["calls"]
            unit = "device" if a.device == "cuda" else "cpu (aten ops)"
            print(f"\n=== {name} / {impl}: {total:.1f} us {unit} time per step, {sum(r['calls'] for r in rows.values()):.0f} kernels ===")
            print("  " + ", ".join(f"{k} {v[0]:.1f} us ({v[1]:.0f})" for k, v in sorted(by_class.items(), key=lambda kv: -kv[1][0])))
            print(f"  {'us/step':>9} {'calls':>5} {'class':<9} kernel")
            for key, r in sorted(rows.items(), key=lambda kv: -kv[1]["us"])[: a.top]:
                print(f"  {r['us']:9.1f} {r['calls']:5.0f} {kernel_class(key):<9} {key[:110]}")
            if out:
                out.write(json.dumps({"workload": name, "impl": impl, "total_us": total,
                                      "classes": {k: {"us": v[0], "calls": v[1]} for k, v in by_class.items()},
                                      "kernels": [{"name": k, **r, "class": kernel_class(k)} for k, r in rows.items()]}) + "\n")


if __name__ == "__main__":
    main()
