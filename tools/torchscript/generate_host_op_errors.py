"""Scripted TorchScript functions whose host ops (aten::size, __getitem__, floordiv, Int) PyTorch
refuses or computes at run time, with the graph PyTorch prints and what PyTorch gives on the
inputs: the value or the error's last line. Writes test-fixtures/torchscript/host-op-errors.json,
read by packages/graph-fuser/test/run-host-op-checks.test.ts (CI has no torch).

Run: /work/torchvenv/bin/python tools/torchscript/generate_host_op_errors.py
"""
import json
import math
import os

import torch


def size_out_of_range(x: torch.Tensor) -> int:
    return x.size(9)


def size_negative(x: torch.Tensor) -> int:
    return x.size(-2)


def size_negative_out_of_range(x: torch.Tensor) -> int:
    return x.size(-3)


def size_of_scalar(x: torch.Tensor) -> int:
    return x.size(0)


def getitem_out_of_range(x: torch.Tensor) -> int:
    return x.size()[9]


def getitem_negative(x: torch.Tensor) -> int:
    return x.size()[-1]


def floordiv_by_zero(a: int, b: int) -> int:
    return a // b


def floordiv_negative(a: int, b: int) -> int:
    return a // b


def float_floordiv_by_zero(a: float, b: float) -> float:
    return a // b


def int_of_nan_tensor(a: torch.Tensor) -> int:
    return int(a)


def int_of_tensor(a: torch.Tensor) -> int:
    return int(a)


CASES = [
    (size_out_of_range, [torch.ones(2, 3)]),
    (size_negative, [torch.ones(2, 3)]),
    (size_negative_out_of_range, [torch.ones(2, 3)]),
    (size_of_scalar, [torch.tensor(1.0)]),
    (getitem_out_of_range, [torch.ones(2, 3)]),
    (getitem_negative, [torch.ones(2, 3)]),
    (floordiv_by_zero, [2, 0]),
    (floordiv_negative, [-7, 2]),
    (float_floordiv_by_zero, [2.0, 0.0]),
    (int_of_nan_tensor, [torch.tensor(float("nan"))]),
    (int_of_tensor, [torch.tensor(-7.9)]),
]


def number(x):
    """JSON has no nan/inf: those are written as Python's repr ('nan', 'inf', '-inf')."""
    return x if not isinstance(x, float) or math.isfinite(x) else repr(x)


def describe(v):
    if isinstance(v, torch.Tensor):
        flat = [number(x) for x in v.flatten().tolist()]
        return {"tensor": flat, "shape": list(v.shape), "dtype": str(v.dtype).replace("torch.", "")}
    if isinstance(v, float) and not math.isfinite(v):
        return {"float": repr(v)}
    return v


def main():
    out = []
    for fn, inputs in CASES:
        scripted = torch.jit.script(fn)
        case = {"name": fn.__name__, "graph": str(scripted.graph), "inputs": [describe(v) for v in inputs]}
        try:
            case["value"] = describe(scripted(*inputs))
        except Exception as e:  # noqa: BLE001 - the message is the fixture
            lines = [l.strip() for l in str(e).splitlines() if l.strip()]
            case["error"] = lines[-1].removeprefix("RuntimeError: ")
        out.append(case)
    root = os.path.join(os.path.dirname(__file__), "..", "..", "test-fixtures", "torchscript", "host-op-errors.json")
    with open(root, "w") as f:
        json.dump({"torch": torch.__version__, "cases": out}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
