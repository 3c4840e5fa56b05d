# Generates test-fixtures/torch-values/llama-block.json: PyTorch's forward output and autograd
# grads (of x and of every weight) of the LLaMA decoder block nn.Module (tools/bench/llama_block.py,
# HF LlamaDecoderLayer's math) on seeded random inputs at small sizes — the oracle of tsfuser's
# llama_block definitions (packages/tsfuser/test/llama-block.test.ts; CI has no PyTorch, so the
# JSON is committed). Per case, one set of inputs (x, dy, weights: bf16; cos / sin: HF's tables
# cast to bf16) and two runs of the same module on them: in bf16 (what eager PyTorch computes)
# and in float64 (the inputs' bf16 values widened: the exact answer the tolerance is measured
# from). Values are base64 of little-endian arrays — bf16 as its uint16 bits, float64 results
# narrowed to float32 (far below bf16's error) — to keep the file under 1 MB. Per case also the
# activations the bf16 module's forward computes for tsfuser's backward (LLAMA_SAVED but the
# philox pair, tools/bench/llama_block_check.py's forward_saved): mutually consistent saved inputs,
# so the test can check the backward alone.
# Run: /work/torchvenv/bin/python tools/torch-values/llama_block_values.py
import base64
import json
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "bench"))
import llama_block  # noqa: E402  (the one module the bench and this fixture share)
import llama_block_check  # noqa: E402  (forward_saved: the saved set as the GPU check writes it)

SEED = 20261202
OUT = ROOT / "test-fixtures" / "torch-values" / "llama-block.json"
CASES = [
    dict(name="mha", batch=2, seq=16, hidden=64, heads=4, kv_heads=4, head_dim=16, ffn=160, eps=1e-6),
    dict(name="gqa", batch=2, seq=16, hidden=32, heads=4, kv_heads=2, head_dim=8, ffn=64, eps=1e-6),
]


def bf16_b64(t):
    return base64.b64encode(t.detach().to(torch.bfloat16).contiguous().view(torch.int16).numpy().tobytes()).decode()


def f32_b64(t):
    return base64.b64encode(t.detach().to(torch.float32).contiguous().numpy().tobytes()).decode()


def run(block, x, cos, sin, dy):
    x = x.clone().requires_grad_(True)
    y = block(x, cos, sin)
    y.backward(dy)
    grads = {"x": x.grad}
    for name, attr in llama_block.PARAMETERS:
        grads[name] = block.get_parameter(attr).grad
    return y, grads


def case(c, gen):
    cfg = {k: v for k, v in c.items() if k != "name"}
    block = llama_block.init_block(llama_block.LlamaBlock(**cfg), gen).to(torch.bfloat16)
    x = torch.randn(c["batch"], c["seq"], c["hidden"], generator=gen).to(torch.bfloat16)
    dy = torch.randn(c["batch"], c["seq"], c["hidden"], generator=gen).to(torch.bfloat16)
    cos, sin = llama_block.rope_tables(c["seq"], c["head_dim"], torch.bfloat16, "cpu")
    y16, g16 = run(block, x, cos, sin, dy)
    wide = llama_block.LlamaBlock(**cfg)
    wide.load_state_dict({k: v.double() for k, v in block.state_dict().items()})
    wide = wide.double()
    y64, g64 = run(wide, x.double(), cos.double(), sin.double(), dy.double())
    _, saved = llama_block_check.forward_saved(block, x, cos, sin, cfg)
    saved = {n: (f32_b64(t) if n in llama_block_check.F32_SAVED else bf16_b64(t)) for n, t in saved.items()
             if n not in llama_block_check.PHILOX}
    inputs = {"x": x, "dy": dy, "cos": cos, "sin": sin}
    for name, attr in llama_block.PARAMETERS:
        inputs[name] = block.get_parameter(attr)
    return {
        "name": c["name"],
        "config": {"batch": c["batch"], "seq": c["seq"], "hidden": c["hidden"], "heads": c["heads"], "kvHeads": c["kv_heads"],
                   "headDim": c["head_dim"], "ffn": c["ffn"], "eps": c["eps"]},
        "inputs": {k: {"shape": list(v.shape), "bf16": bf16_b64(v)} for k, v in inputs.items()},
        "bf16": {"y": bf16_b64(y16), "grads": {k: bf16_b64(v) for k, v in g16.items()}},
        "float64": {"y": f32_b64(y64), "grads": {k: f32_b64(v) for k, v in g64.items()}},
        "saved": saved,
    }


def main():
    gen = torch.Generator().manual_seed(SEED)
    data = {"generator": "tools/torch-values/llama_block_values.py", "torch": torch.__version__, "seed": SEED,
            "cases": [case(c, gen) for c in CASES]}
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
