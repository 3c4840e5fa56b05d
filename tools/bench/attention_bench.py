#!/usr/bin/env python3
"""PyTorch's SDPA backends at the attention bench points, beside tsfuser's generated kernels.

Times torch.nn.functional.scaled_dot_product_attention under
torch.nn.attention.sdpa_kernel(FLASH_ATTENTION) and (CUDNN_ATTENTION), forward and backward
(backward alone: autograd.grad of the forward's output, the forward outside the timed region),
bf16, batch 4, 16 heads, E 128, L = S in 1024/2048/4096/8192, causal and not; CUDA events,
median of 7 after 2 warm-ups. TFLOP/s: forward 4*N*H*L*S*E, backward 2.5x, half when causal.
With --tsfuser FILE (the codegen-attention entry's attention.json) the table puts tsfuser's
numbers and the ratios beside PyTorch's. Prints the table last.
"""
import argparse
import json
import statistics

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

SEQS = [1024, 2048, 4096, 8192]
N, H, E = 4, 16, 128


def time_ms(fn, warmup=2, iters=7):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def bench(backend, seq, causal):
    q, k, v = (torch.randn(N, H, seq, E, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    grad = torch.randn(N, H, seq, E, device="cuda", dtype=torch.bfloat16)
    with sdpa_kernel([backend]):
        fwd = time_ms(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal))
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        bwd = time_ms(lambda: torch.autograd.grad(out, (q, k, v), grad, retain_graph=True))
    flops = 4 * N * H * seq * seq * E / (2 if causal else 1)
    return fwd, flops / (fwd * 1e9), bwd, 2.5 * flops / (bwd * 1e9)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tsfuser", help="attention.json of the codegen-attention entry")
    args = parser.parse_args()
    ours = {}
    if args.tsfuser:
        try:
            with open(args.tsfuser) as f:
                for row in json.load(f).get("bench", []):
                    ours[(row["seq"], row["causal"])] = (row["forwardTflops"], row["backwardTflops"])
        except (OSError, ValueError) as error:
            print(f"attention_bench: could not read {args.tsfuser}: {error}")
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    rows = []
    for seq in SEQS:
        for causal in (False, True):
            result = {}
            for name, backend in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
                try:
                    result[name] = bench(backend, seq, causal)
                except RuntimeError as error:
                    print(f"{name} seq {seq} causal {causal}: {str(error).splitlines()[0]}")
                    result[name] = None
                torch.cuda.empty_cache()
            rows.append((seq, causal, result))
    print("\nTFLOP/s, bf16, N 4, H 16, E 128 (fwd 4NHLSE, bwd 2.5x, causal half); ratio = tsfuser / flash")
    print(f"{'seq':>5} {'causal':>6} | {'ts fwd':>6} {'flash':>6} {'cudnn':>6} {'ratio':>5} | {'ts bwd':>6} {'flash':>6} {'cudnn':>6} {'ratio':>5}")
    for seq, causal, result in rows:
        mine = ours.get((seq, causal))
        flash, cudnn = result.get("flash"), result.get("cudnn")
        def cell(x):
            return f"{x:6.0f}" if x is not None else f"{'-':>6}"
        tf = mine[0] if mine else None
        tb = mine[1] if mine else None
        ff = flash[1] if flash else None
        fb = flash[3] if flash else None
        cf = cudnn[1] if cudnn else None
        cb = cudnn[3] if cudnn else None
        rf = f"{tf / ff:5.2f}" if tf and ff else f"{'-':>5}"
        rb = f"{tb / fb:5.2f}" if tb and fb else f"{'-':>5}"
        print(f"{seq:>5} {str(causal):>6} | {cell(tf)} {cell(ff)} {cell(cf)} {rf} | {cell(tb)} {cell(fb)} {cell(cb)} {rb}")


if __name__ == "__main__":
    main()
