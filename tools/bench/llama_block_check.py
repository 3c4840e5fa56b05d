#!/usr/bin/env python3
"""The PyTorch half of the LLaMA block's check at any size (issue 35 acceptance: forward and
backward match PyTorch at the 7B size on the H200, norm-wise, bf16 tolerances).

  python3 tools/bench/llama_block_check.py inputs DIR [--size 7b|small|gqa]
      seeded inputs as .npy (bf16 as <u2 bit patterns, what tsfuser reads): x, dy, cos, sin
      (HF's tables) and the nine weights of tools/bench/llama_block.py's module
  bash gpu-bundle/run.sh tsfuser-llama-check DIR --size …   (tsfuser: y and the grads as .npy)
  python3 tools/bench/llama_block_check.py compare DIR [--size …] [--device cuda|cpu]
      runs the module on the same inputs in bf16 (eager) and in float64, and checks
      ||tsfuser - float64|| / ||float64|| <= 2e-2 for y (training and inference forward) and every
      grad, printing bf16 PyTorch's error beside; exit status 1 when one misses.
"""
import argparse
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import llama_block  # noqa: E402

TOLERANCE = 2e-2
SEED = 20261203
GRADS = ["x"] + [name for name, _ in llama_block.PARAMETERS]
SIZES = {
    "7b": llama_block.CONFIG_7B,
    "small": dict(batch=2, seq=16, hidden=64, heads=4, kv_heads=4, head_dim=16, ffn=160, eps=1e-6),
    "gqa": dict(batch=2, seq=16, hidden=64, heads=4, kv_heads=2, head_dim=16, ffn=160, eps=1e-6),
}


def save_bf16(path, t):
    np.save(path, t.detach().to(torch.bfloat16).contiguous().cpu().view(torch.int16).numpy().view(np.uint16))


def load(path):
    a = np.load(path)
    if a.dtype == np.uint16:
        return torch.from_numpy(a.astype(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def inputs(d, c):
    gen = torch.Generator().manual_seed(SEED)
    block = llama_block.init_block(llama_block.LlamaBlock(**c), gen)
    cos, sin = llama_block.rope_tables(c["seq"], c["head_dim"], torch.bfloat16, "cpu")
    save_bf16(d / "x.npy", torch.randn(c["batch"], c["seq"], c["hidden"], generator=gen))
    save_bf16(d / "dy.npy", torch.randn(c["batch"], c["seq"], c["hidden"], generator=gen))
    save_bf16(d / "cos.npy", cos)
    save_bf16(d / "sin.npy", sin)
    for name, attr in llama_block.PARAMETERS:
        save_bf16(d / f"{name}.npy", block.get_parameter(attr))
    print(f"wrote the inputs to {d} (seed {SEED})")


def run_module(d, c, dtype, device):
    block = llama_block.LlamaBlock(**c).to(device=device, dtype=dtype)
    with torch.no_grad():
        for name, attr in llama_block.PARAMETERS:
            block.get_parameter(attr).copy_(load(d / f"{name}.npy").to(dtype))
    x = load(d / "x.npy").to(device=device, dtype=dtype).requires_grad_(True)
    cos, sin = (load(d / f"{n}.npy").to(device=device, dtype=dtype) for n in ("cos", "sin"))
    y = block(x, cos, sin)
    y.backward(load(d / "dy.npy").to(device=device, dtype=dtype))
    grads = {"x": x.grad}
    grads.update({name: block.get_parameter(attr).grad for name, attr in llama_block.PARAMETERS})
    return {k: v.detach().double().cpu() for k, v in [("y", y)] + list(grads.items())}


def rel(a, b):
    return float(torch.linalg.vector_norm(a.double() - b) / torch.linalg.vector_norm(b))


def compare(d, c, device):
    exact = run_module(d, c, torch.float64, device)
    eager = run_module(d, c, torch.bfloat16, device)
    ours = {"y": load(d / "out_y.npy"), "y (inference)": load(d / "out_y_inference.npy")}
    ours.update({g: load(d / f"grad_{g}.npy") for g in GRADS})
    failed = 0
    print(f"{'':18} {'tsfuser':>10} {'torch bf16':>10}   (||. - float64|| / ||float64||, bound {TOLERANCE})")
    for name, got in ours.items():
        key = "y" if name.startswith("y") else name
        ok = tuple(got.shape) == tuple(exact[key].shape)
        e = rel(got.reshape(exact[key].shape), exact[key]) if ok else float("inf")
        failed += 0 if ok and e <= TOLERANCE else 1
        print(f"{('d ' + name) if key != 'y' else name:18} {e:10.2e} {rel(eager[key], exact[key]):10.2e}"
              f"{'' if ok and e <= TOLERANCE else '   FAIL'}")
    print(f"{len(ours) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("step", choices=["inputs", "compare"])
    ap.add_argument("dir")
    ap.add_argument("--size", choices=sorted(SIZES), default="7b")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda" if torch.cuda.is_available() else "cpu")
    a = ap.parse_args()
    d = pathlib.Path(a.dir)
    d.mkdir(parents=True, exist_ok=True)
    if a.step == "inputs":
        inputs(d, SIZES[a.size])
        return 0
    return compare(d, SIZES[a.size], a.device)


if __name__ == "__main__":
    sys.exit(main())
