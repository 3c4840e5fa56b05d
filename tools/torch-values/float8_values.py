"""PyTorch's fp8 conversions (float32 -> float8_e4m3fn / float8_e5m2 / float8_e8m0fnu bytes, and
back), for the bit-exact tests of tsfuser's fp8 casts (packages/fusion-ir/test/eval-float8.test.ts).
CI has no PyTorch: the output, test-fixtures/torch-values/float8.json, is committed. Regenerate with

    /tmp/torchvenv/bin/python tools/torch-values/float8_values.py

Inputs are float32 bit patterns: every fp8 value of each format, its float32 neighbours, the exact
midpoints between consecutive fp8 values (ties) and their neighbours, subnormals of both float32
and fp8, the overflow thresholds, +-0, +-inf, NaN, and random bit patterns and normals (seed 2426).
Doubles: a second list of float64 inputs converted by a float64 tensor's .to(fp8), to pin the
double -> fp8 path (PyTorch goes through float32).
"""

import json
import pathlib
import random

import torch

OUT = pathlib.Path(__file__).resolve().parents[2] / "test-fixtures" / "torch-values" / "float8.json"
FORMATS = {"Float8_e4m3fn": torch.float8_e4m3fn, "Float8_e5m2": torch.float8_e5m2, "Float8_e8m0fnu": torch.float8_e8m0fnu}
rng = random.Random(2426)


def f32_from_bits(bits):
    return torch.tensor(bits, dtype=torch.int64).to(torch.int32).view(torch.float32)


def bits_of(t32):
    return [b & 0xFFFFFFFF for b in t32.view(torch.int32).tolist()]


inputs = set()
for dt in FORMATS.values():
    values = torch.arange(256, dtype=torch.int64).to(torch.uint8).view(dt).float()
    finite = sorted({v for v in values.tolist() if v == v and abs(v) != float("inf")})
    for v in finite:
        b = bits_of(torch.tensor([v], dtype=torch.float32))[0]
        inputs.update([b, (b + 1) & 0xFFFFFFFF, (b - 1) & 0xFFFFFFFF])
    for lo, hi in zip(finite, finite[1:]):
        mid = bits_of(torch.tensor([(lo + hi) / 2], dtype=torch.float32))[0]
        inputs.update([mid, mid + 1, mid - 1])
specials = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 448.0, 464.0, 479.99, 480.0, 500.0,
            57344.0, 61439.0, 61440.0, 65535.0, 65536.0, 1e30, -1e30, 3.4028234663852886e38,
            2.0 ** -149, 2.0 ** -127, 2.0 ** -126, 1.5 * 2.0 ** -127, 0.75 * 2.0 ** -126, 2.0 ** -10, 2.0 ** -17]
for s in specials:
    inputs.update(bits_of(torch.tensor([s, -s], dtype=torch.float32)))
inputs.update(0x7FC00000 | rng.getrandbits(22) for _ in range(4))  # NaN payloads
inputs.update(rng.getrandbits(32) for _ in range(2000))
inputs.update(rng.getrandbits(23) | (rng.choice([0, 1]) << 31) for _ in range(200))  # float32 subnormals
inputs.update(bits_of(torch.randn(2000, generator=torch.Generator().manual_seed(2426)) * 100))
inputs = sorted(inputs)

x = f32_from_bits(inputs)
encoded = {name: bytes(x.to(dt).view(torch.uint8).tolist()).hex() for name, dt in FORMATS.items()}
decoded = {name: "".join("%08x" % b for b in bits_of(torch.arange(256).to(torch.uint8).view(dt).float())) for name, dt in FORMATS.items()}

doubles = [rng.uniform(-600, 600) for _ in range(300)] + [rng.uniform(-2e-3, 2e-3) for _ in range(300)]
# Double-rounding candidates: a hair above/below e4m3/e5m2 midpoints, not representable in float32.
doubles += [m * (1 + s * 2.0 ** -40) for m in (1.0625, 3.25, 0.013671875, 272.0, 40960.0) for s in (-1, 1)]
xd = torch.tensor(doubles, dtype=torch.float64)
double_encoded = {name: bytes(xd.to(dt).view(torch.uint8).tolist()).hex() for name, dt in FORMATS.items()}

OUT.write_text(json.dumps({
    "torch": torch.__version__,
    "float32Bits": "".join("%08x" % b for b in inputs),
    "encoded": encoded,
    "decoded": decoded,
    "doubles": doubles,
    "doubleEncoded": double_encoded,
}, indent=1) + "\n")
print(f"wrote {OUT} ({len(inputs)} float32 inputs, {len(doubles)} doubles)")
