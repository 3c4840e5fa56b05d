# Generates test-fixtures/torch-values/sweep-model.json: the PyTorch modules the sweep times for
# its model-shaped and axis-0 families (tools/bench/sweep_pytorch_model.py, run here on the CPU in
# float32), their inputs and outputs at small points, so the tsfuser test can check that the
# definitions it times compute what the PyTorch side it is compared with computes. The forward
# attention modules draw their own dropout mask: only their attn (and nanoGPT's broadcast causal
# mask) outputs are compared. Run with PyTorch installed:
#   python3 tools/torch-values/sweep_model_values.py
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import sweep_pytorch_model  # noqa: E402

sweep_pytorch_model.DEVICE = "cpu"

# family, rows, hidden, indices of the outputs to compare (None: all).
POINTS = [
    ("group_norm_bwd", 128, 5, None),
    ("rope", 4, 256, None),
    ("rope_bwd", 4, 256, None),
    ("cat", 5, 37, None),
    ("nanogpt_attn", 32, 20, [2, 3]),
    ("nanogpt_attn_bwd", 32, 20, None),
    ("huggingface_attn", 32, 20, [1]),
    ("huggingface_attn_bwd", 32, 20, None),
    ("col_sum", 6, 37, None),
    ("softmax_outer", 6, 37, None),
    ("softmax_bwd_outer", 6, 37, None),
]


def flat(t):
    t = t.contiguous().reshape(-1)
    if t.dtype == torch.bool:
        return [int(v) for v in t.tolist()]
    # 9 significant digits round-trip a float32 (and keep the file small).
    return [float(f"{v:.9g}") for v in t.float().tolist()]


def main():
    torch.manual_seed(20261203)
    cases = []
    for family, rows, hidden, compare in POINTS:
        fn, args = sweep_pytorch_model.make_model_family({"family": family, "rows": rows, "hidden": hidden}, torch.float32)
        outs = fn(*args)
        outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
        cases.append(
            {
                "family": family,
                "rows": rows,
                "hidden": hidden,
                "inputs": [{"sizes": list(a.shape), "bool": a.dtype == torch.bool, "values": flat(a)} for a in args],
                "outputs": [{"index": k, "sizes": list(o.shape), "values": flat(o)} for k, o in enumerate(outs) if compare is None or k in compare],
            }
        )
    out = os.path.join(os.path.dirname(__file__), "..", "..", "test-fixtures", "torch-values", "sweep-model.json")
    doc = {"generator": f"torch {torch.__version__}: tools/bench/sweep_pytorch_model.py's modules on the CPU, float32, seed 20261203", "cases": cases}
    with open(out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {out}: {len(cases)} cases")


if __name__ == "__main__":
    main()
