# Generates test-fixtures/torch-values/reshape-layer-norm.json: the attention prologue of the
# `reshape_layer_norm_prologue_bf16` bench workload at a small size — x [2, 3, 64] bf16 reshaped
# to [6, 64], F.layer_norm with weight and bias (eps 1e-5) computed in float32, cast to bf16,
# reshaped back — on deterministic bf16 inputs (values exactly representable in bf16), so the
# reference backend's result can be compared with PyTorch's without PyTorch in CI. Run with
# PyTorch installed:
#   python3 tools/torch-values/reshape_layer_norm_values.py
import json
import os

import torch
import torch.nn.functional as F

B, S, HD = 2, 3, 64


def values(n, a, b):
    # bf16-exact: small multiples of 1/16 in [-4, 4)
    return [((i * a + b) % 128 - 64) / 16.0 for i in range(n)]


x = torch.tensor(values(B * S * HD, 37, 11), dtype=torch.bfloat16).reshape(B, S, HD)
w = torch.tensor(values(HD, 13, 70), dtype=torch.bfloat16)
b = torch.tensor(values(HD, 29, 5), dtype=torch.bfloat16)
rows = x.reshape(B * S, HD).float()
y = F.layer_norm(rows, (HD,), w.float(), b.float(), 1e-5).to(torch.bfloat16).reshape(B, S, HD)


def flat(t):
    return [float(v) for v in t.float().contiguous().reshape(-1).tolist()]


out = {
    "generator": f"torch {torch.__version__}: y = F.layer_norm(x.reshape({B * S}, {HD}).float(), ({HD},), w.float(), b.float(), 1e-5).to(bfloat16).reshape({B}, {S}, {HD})",
    "sizes": [B, S, HD],
    "x": flat(x),
    "weight": flat(w),
    "bias": flat(b),
    "expected": flat(y),
}
path = os.path.join(os.path.dirname(__file__), "..", "..", "test-fixtures", "torch-values", "reshape-layer-norm.json")
with open(path, "w") as f:
    json.dump(out, f)
    f.write("\n")
print(f"wrote {os.path.normpath(path)}")
