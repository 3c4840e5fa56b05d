"""PyTorch's values for tsfuser's in-place output tests (packages/tsfuser/test/
output-alias-torch.test.ts): each case runs an in-place PyTorch program (x.add_(y) then return
x, running-stat updates, a transposed target, a view of the updated input ...) and records the
inputs' storage before, the returned tensors and the inputs' storage after. The TypeScript test
builds the matching nvFuser-style definition (add_output(t, alias_input=x)) and checks both.
CI has no PyTorch: the output, test-fixtures/torch-values/inplace-outputs.json, is committed.
Regenerate with

    /work/torchvenv/bin/python tools/torch-values/inplace_outputs_values.py
"""

import json
import pathlib

import torch

SEED = 3701
OUT = pathlib.Path(__file__).resolve().parents[2] / "test-fixtures" / "torch-values" / "inplace-outputs.json"
print(f"inplace_outputs_values: seed {SEED}")
gen = torch.Generator().manual_seed(SEED)


def rand(*sizes, dtype=torch.float32):
    return torch.randn(*sizes, generator=gen, dtype=torch.float32).to(dtype)


def storage(t):
    """The tensor's whole storage, as flat floats (what a strided input's bytes hold)."""
    base = torch.empty(0, dtype=t.dtype).set_(t.untyped_storage(), 0, (t.untyped_storage().nbytes() // t.element_size(),), (1,))
    return [float(v) for v in base.tolist()]


def describe(t):
    return {"dtype": str(t.dtype).removeprefix("torch."), "sizes": list(t.shape), "strides": list(t.stride()), "storage": storage(t)}


def case(make_inputs, program):
    inputs = make_inputs()
    before = [describe(t) for t in inputs]
    outputs = program(*inputs)
    return {
        "inputs": before,
        "outputs": [[float(v) for v in o.contiguous().flatten().tolist()] for o in outputs],
        "outputSharesInput": [next((i for i, t in enumerate(inputs) if o.data_ptr() == t.data_ptr() and o.stride() == t.stride()), -1) for o in outputs],
        "inputsAfter": [storage(t) for t in inputs],
    }


def add_returns_input(x, y):
    x.add_(y)
    return [x]


def where_three_outputs(x):
    # nvFuser's test_returning_aliased_outputs: T4 = where(x > 0, x, 0); outputs T4, T4 (aliased), T0.
    x.copy_(torch.where(x > 0, x, torch.zeros((), dtype=x.dtype)))
    return [x, x, x]


def mul_visible_half(x, y):
    return [x.mul_(y)]


def running_mean(x, running):
    m = 0.1
    mean = x.mean(0)
    out = x - mean
    running.mul_(1 - m).add_(mean * m)
    return [out]


def transposed_target(base, y):
    x = base.t()
    x.add_(y)
    return [x]


def alias_replaced(x, y):
    y.copy_(x + 1)
    return [y]


def alias_twice(x):
    return [x.mul_(3)]


def view_of_updated(x):
    v = x.t()
    x.mul_(2)
    return [v]


def reduction_into_input(x, r):
    r.copy_(x.sum(1))
    return [r]


cases = {
    "add_returns_input": case(lambda: [rand(4, 5), rand(4, 5)], add_returns_input),
    "where_three_outputs": case(lambda: [rand(3, 4)], where_three_outputs),
    "mul_visible_half": case(lambda: [rand(6, 7, dtype=torch.float16), rand(6, 7, dtype=torch.float16)], mul_visible_half),
    "running_mean": case(lambda: [rand(8, 5), rand(5)], running_mean),
    "transposed_target": case(lambda: [rand(5, 4), rand(4, 5)], transposed_target),
    "alias_replaced": case(lambda: [rand(3, 3), rand(3, 3)], alias_replaced),
    "alias_twice": case(lambda: [rand(7)], alias_twice),
    "view_of_updated": case(lambda: [rand(2, 3)], view_of_updated),
    "reduction_into_input": case(lambda: [rand(4, 6), rand(4)], reduction_into_input),
}
# transposed_target's first input is the base tensor; the definition's input is its transpose.
t = cases["transposed_target"]["inputs"][0]
t["sizes"], t["strides"] = [t["sizes"][1], t["sizes"][0]], [t["strides"][1], t["strides"][0]]
cases["transposed_target"]["outputSharesInput"] = [0]

OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps({"seed": SEED, "torch": torch.__version__, "cases": cases}, indent=1) + "\n")
print(f"wrote {OUT}")
