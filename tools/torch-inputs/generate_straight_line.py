"""Repro-script top levels whose names are rebound, run by CPython with PyTorch: the sizes, strides
and dtypes of the list fd.execute(...) receives (or the final `inputs`). Writes
test-fixtures/torch-inputs/straight-line.json, read by
packages/tsfuser/test/python-inputs-straight-line.test.ts (CI has no torch).

Run: /work/torchvenv/bin/python tools/torch-inputs/generate_straight_line.py
"""
import json
import os

import torch


class FakeFd:
    """Stands in for nvFuser's FusionDefinition: execute() records what it receives."""

    def __init__(self):
        self.received = None

    def execute(self, inputs):
        if self.received is None:
            self.received = [(list(t.shape), list(t.stride()), str(t.dtype).replace("torch.", "")) for t in inputs]
        return []


SCRIPTS = {
    "rebinding through a method": "x = torch.randn(2, 3)\nx = x.t()\nx = x.contiguous()\ninputs = [x]\nfd.execute(inputs)",
    "a later rebinding leaves an earlier use alone": "x = torch.randn(7, 5)\ny = x.t()\nx = torch.randn(5, 7)\ninputs = [y, x]\nfd.execute(inputs)",
    "execute reads the values at the call": "n = 3\ninputs = [torch.ones(n)]\nfd.execute(inputs)\nn = 5\ninputs = [torch.ones(n, n)]",
    "a size bound before a rebinding": "n = 4\nx = torch.zeros(n, 2)\nn = 5\ninputs = [x, torch.zeros(n)]\nfd.execute(inputs)",
    "no execute call: the last inputs": "inputs = [torch.ones(2)]\ninputs = [torch.ones(3, 2).t()]",
    "rebinding in a chain of views": "x = torch.randn(4, 6)\nx = x[:, 1:5]\nx = x.t()\ninputs = [x]\nfd.execute(inputs)",
}


def main():
    cases = []
    for name, script in SCRIPTS.items():
        fd = FakeFd()
        env = {"torch": torch, "fd": fd}
        exec(script, env)  # noqa: S102 - our own fixed scripts
        received = fd.received
        if received is None:
            received = [(list(t.shape), list(t.stride()), str(t.dtype).replace("torch.", "")) for t in env["inputs"]]
        cases.append({"name": name, "script": script, "inputs": [{"sizes": s, "strides": st, "dtype": d} for s, st, d in received]})
    out = os.path.join(os.path.dirname(__file__), "..", "..", "test-fixtures", "torch-inputs", "straight-line.json")
    with open(out, "w") as f:
        json.dump({"torch": torch.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
