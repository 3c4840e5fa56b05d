#!/usr/bin/env python3
"""Prints the Triton kernels torch.compile generates for some of pytorch_bench.py's workloads,
with the launch configuration the autotuner kept, so that a tsfuser kernel that is behind can be
read beside the one it is compared with (what it vectorizes, how it indexes, its block shape).

Usage (GPU host): python3 tools/bench/inductor_kernels.py cat3_dim1_bf16,transpose_f32 [--out DIR]
The kernels come from Inductor's own output-code log (TORCH_LOGS=output_code); with --out each
workload's log is written to DIR/<workload>.py as well.
"""
import argparse
import io
import logging
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch._logging  # noqa: E402

from pytorch_bench import WORKLOADS  # noqa: E402


def kernels_of(name):
    fn, args, _ = WORKLOADS[name]()
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("torch._inductor.codecache")
    torch._logging.set_logs(output_code=True)
    root = logging.getLogger("torch")
    root.addHandler(handler)
    try:
        torch._dynamo.reset()
        # a backward workload (gpt_mlp_bwd_bf16) compiles its forward, AOTAutograd its backward,
        # through the hook pytorch_bench.py times; others compile the function itself
        hook = getattr(fn, "torch_compile", None)
        compiled = hook() if hook is not None else torch.compile(fn)
        compiled(*args)
        torch.cuda.synchronize()
    finally:
        root.removeHandler(handler)
        torch._logging.set_logs()
    del logger
    return stream.getvalue()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("workloads")
    parser.add_argument("--out")
    a = parser.parse_args()
    for name in a.workloads.split(","):
        if name not in WORKLOADS:
            print(f"unknown workload {name}; known: {', '.join(sorted(WORKLOADS))}")
            sys.exit(2)
        text = kernels_of(name)
        if a.out:
            os.makedirs(a.out, exist_ok=True)
            with open(os.path.join(a.out, f"{name}.py"), "w") as f:
                f.write(text)
        keep = []
        inside = False
        for line in text.splitlines():
            if "@triton.jit" in line or "@triton_heuristics" in line or "triton_meta" in line:
                inside = True
            if inside:
                keep.append(line)
            if inside and line.strip().startswith("''', device_str"):
                inside = False
            if ".run(" in line or "grid=" in line:
                keep.append(line)
        print(f"===== {name} =====")
        print("\n".join(keep) if keep else text[-4000:])


if __name__ == "__main__":
    main()
