"""PyTorch's uint64 semantics for the ops its CPU build implements on uint64 (mul, bitwise and /
or / xor, eq, sum, and casts to and from float32 / float64 / int64), for tsfuser's UInt64 tests
(packages/fusion-ir/test/eval-uint64.test.ts). CI has no PyTorch: the output,
test-fixtures/torch-values/uint64.json, is committed. Regenerate with

    /tmp/torchvenv/bin/python tools/torch-values/uint64_values.py

Values are decimal strings (uint64 does not fit a JSON number). Float → uint64 inputs are in
range only ([0, 2^64)): PyTorch's CPU result for negative, too large or NaN floats is C++
undefined behaviour (tsfuser saturates as CUDA does, tested separately).
"""

import json
import pathlib
import random

import torch

OUT = pathlib.Path(__file__).resolve().parents[2] / "test-fixtures" / "torch-values" / "uint64.json"
rng = random.Random(2464)
edges = [0, 1, 2, 3, 255, 2**31, 2**32 - 1, 2**32, 2**53 - 1, 2**53, 2**53 + 1, 2**63 - 1, 2**63, 2**63 + 1,
         2**64 - 2, 2**64 - 1, 2**24 + 1, 2**54 + 2**30 + 1, 0xFFFFFF8000000000, 0xFFFFFF7FFFFFFFFF]
N = 512
a_vals = edges + [rng.getrandbits(rng.choice([8, 32, 53, 63, 64])) for _ in range(N - len(edges))]
b_vals = [rng.getrandbits(rng.choice([8, 32, 53, 63, 64])) for _ in range(N)]
a = torch.tensor(a_vals, dtype=torch.uint64)
b = torch.tensor(b_vals, dtype=torch.uint64)


def u(t):
    return [str(v & 0xFFFFFFFFFFFFFFFF) for v in t.tolist()]


floats = [rng.uniform(0, 2**64) for _ in range(200)] + [rng.uniform(0, 1000) for _ in range(100)] + [0.0, 0.5, 1.0, 2.0**63, 2.0**64 - 2048.0, 1.5, 2.0**53 + 2]
f64 = torch.tensor(floats, dtype=torch.float64)
f32 = f64.float()
f32 = f32[f32 < 2.0**64]  # float32 rounding may reach 2^64 (out of range)
ints = [rng.getrandbits(64) - 2**63 for _ in range(200)] + [-1, -2**63, 2**63 - 1, 0]
i64 = torch.tensor(ints, dtype=torch.int64)

OUT.write_text(json.dumps({
    "torch": torch.__version__,
    "a": u(a),
    "b": u(b),
    "mul": u(a * b),
    "and": u(a & b),
    "or": u(a | b),
    "xor": u(a ^ b),
    "eq": (a == b).tolist(),
    "sum": u(a.sum().reshape(1)),
    "toFloat": a.float().tolist(),
    "toDouble": a.double().tolist(),
    "toInt64": [str(v) for v in a.to(torch.int64).tolist()],
    "floats64": floats,
    "floats64ToUInt64": u(f64.to(torch.uint64)),
    "floats32": f32.tolist(),
    "floats32ToUInt64": u(f32.to(torch.uint64)),
    "int64s": [str(v) for v in ints],
    "int64sToUInt64": u(i64.to(torch.uint64)),
}, indent=1) + "\n")
print(f"wrote {OUT}")
