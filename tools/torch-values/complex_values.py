"""Expected values of the complex ops, computed by PyTorch (CPU), for the fusion-ir reference
evaluator tests (packages/fusion-ir/test/eval-complex-torch.test.ts). CI has no PyTorch: the
output, test-fixtures/torch-values/complex.json, is committed. Regenerate with

    /tmp/torchvenv/bin/python tools/torch-values/complex_values.py

Each case holds its inputs and torch's output as {shape, dtype, values}: complex values are
interleaved (re, im) pairs, non-finite numbers are the strings "inf", "-inf" and "nan". Inputs
mix random normal values with a row of special values (infinities, NaNs, signed zeros, huge).
"""

import json
import math
import pathlib

import torch

torch.manual_seed(2424)
OUT = pathlib.Path(__file__).resolve().parents[2] / "test-fixtures" / "torch-values" / "complex.json"

DTYPES = {torch.float32: "Float", torch.float64: "Double", torch.complex64: "ComplexFloat",
          torch.complex128: "ComplexDouble", torch.bool: "Bool"}


def num(v):
    if isinstance(v, bool):
        return v
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def t(x):
    flat = x.detach().reshape(-1)
    if x.is_complex():
        vals = torch.view_as_real(flat).reshape(-1).tolist()
    else:
        vals = flat.tolist()
    return {"shape": list(x.shape), "dtype": DTYPES[x.dtype], "values": [num(v) for v in vals]}


SPECIAL = [complex(math.inf, 0), complex(math.nan, 1), complex(0, math.inf), complex(-math.inf, 1),
           complex(1, math.nan), complex(0, 0), complex(-0.0, -0.0), complex(1e30, -1e30)]


def crand(dtype, special=True):
    """A [3, 8] complex tensor: two random rows and (optionally) a row of special values."""
    real = torch.float32 if dtype == torch.complex64 else torch.float64
    z = torch.complex(torch.randn(3, 8, dtype=real), torch.randn(3, 8, dtype=real))
    if special:
        z[2] = torch.tensor(SPECIAL, dtype=dtype)
    return z


cases = []


def case(op, inputs, out, **args):
    cases.append({"op": op, "args": args, "inputs": [t(x) for x in inputs], "output": t(out)})


UNARY = {
    "abs": torch.abs, "neg": torch.neg, "reciprocal": torch.reciprocal, "exp": torch.exp, "log": torch.log,
    "sqrt": torch.sqrt, "sin": torch.sin, "cos": torch.cos, "tanh": torch.tanh, "real": torch.real,
    "imag": torch.imag, "isfinite": torch.isfinite, "isnan": torch.isnan, "isinf": torch.isinf,
}
BINARY = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "eq": torch.eq, "ne": torch.ne}

for dtype in (torch.complex64, torch.complex128):
    for name, fn in UNARY.items():
        z = crand(dtype)
        case(name, [z], fn(z).clone())
    for name, fn in BINARY.items():
        a, b = crand(dtype), crand(dtype, special=False)
        if name in ("eq", "ne"):
            b[0, :4] = a[0, :4]  # some equal elements
        case(name, [a, b], fn(a, b))
        if name not in ("add", "sub"):
            # torch.add/sub(x, y) compute x ± alpha·y with a complex alpha = 1, so an infinite part of
            # y leaks NaN into the other part (inf·0); nvFuser adds componentwise. Special values
            # therefore sit only in the first operand of add and sub.
            case(name, [b, a], fn(b, a))
    real = torch.float32 if dtype == torch.complex64 else torch.float64
    # complex with a real tensor of the other precision and with a Python float scalar
    z = crand(dtype, special=False)
    r = torch.randn(3, 8, dtype=torch.float64)
    case("add", [z, r], z + r)
    case("mul_scalar", [z], z * 2.5, scalar=2.5)
    re_, im_ = torch.randn(3, 8, dtype=real), torch.randn(3, 8, dtype=real)
    re_[0, 0], im_[0, 1] = math.inf, math.nan
    case("complex", [re_, im_], torch.complex(re_, im_))
    case("cast_to_real", [z], z.real.clone().to(real))
    case("cast_from_real", [re_], re_.to(dtype))
    other = torch.complex128 if dtype == torch.complex64 else torch.complex64
    case("cast_complex", [z], z.to(other))
    cond = torch.rand(3, 8) > 0.5
    a, b = crand(dtype), crand(dtype, special=False)
    case("where", [cond, a, b], torch.where(cond, a, b))
    s = crand(dtype, special=False)
    case("sum", [s], s.sum(dim=1), dims=[1])
    case("sum", [s], s.sum(dim=0), dims=[0])

OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=None) + "\n")
print(f"wrote {len(cases)} cases to {OUT}")
