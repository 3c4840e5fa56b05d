"""Expected values of the indexing ops, computed by PyTorch (CPU), for the fusion-ir reference
evaluator tests (packages/fusion-ir/test/eval-indexing.test.ts). CI has no PyTorch: the output,
test-fixtures/torch-values/indexing.json, is committed. Regenerate with

    /tmp/torchvenv/bin/python tools/torch-values/indexing_values.py

Each case holds its inputs (shape, dtype, row-major values) and torch's output. bf16 values are
written as the float they stand for; out-of-range cases hold torch's error message instead.
"""

import json
import pathlib

import torch

torch.manual_seed(2411)
OUT = pathlib.Path(__file__).resolve().parents[2] / "test-fixtures" / "torch-values" / "indexing.json"

DTYPES = {torch.float32: "Float", torch.bfloat16: "BFloat16", torch.float64: "Double",
          torch.int64: "Int", torch.int32: "Int32", torch.float16: "Half"}


def t(x):
    vals = x.detach().reshape(-1)
    if x.dtype in (torch.bfloat16, torch.float16):
        vals = vals.double()
    return {"shape": list(x.shape), "dtype": DTYPES[x.dtype], "values": vals.tolist()}


def rnd(shape, dtype=torch.float32):
    if dtype in (torch.int64, torch.int32):
        return torch.randint(-50, 50, shape, dtype=dtype)
    return torch.randn(shape, dtype=torch.float32).to(dtype)


cases = []


def case(op, args, inputs, fn):
    entry = {"op": op, "args": args, "inputs": [t(x) for x in inputs]}
    try:
        entry["expected"] = t(fn())
    except (IndexError, RuntimeError) as err:
        entry["error"] = str(err).splitlines()[0]
    cases.append(entry)


# index_select
for dtype in (torch.float32, torch.bfloat16, torch.int64):
    x = rnd((5, 7), dtype)
    i = torch.tensor([4, 0, 0, 2], dtype=torch.int64)
    case("index_select", {"dim": 0}, [x, i], lambda: torch.index_select(x, 0, i))
x = rnd((3, 4, 5))
i = torch.tensor([3, 1, 4, 4, 0, 2], dtype=torch.int32)
case("index_select", {"dim": 2}, [x, i], lambda: torch.index_select(x, 2, i))
case("index_select", {"dim": -2}, [x, i[:3] % 4], lambda: torch.index_select(x, -2, i[:3] % 4))
case("index_select", {"dim": 1}, [x, torch.tensor([4])], lambda: torch.index_select(x, 1, torch.tensor([4])))

# select
x = rnd((4, 6))
case("select", {"dim": 1, "index": 2}, [x], lambda: x.select(1, 2))
case("select", {"dim": 0, "index": -1}, [x], lambda: x.select(0, -1))
case("select", {"dim": 0, "index": 4}, [x], lambda: x.select(0, 4))

# gather
x = rnd((4, 6))
i = torch.randint(0, 6, (3, 5))
case("gather", {"dim": 1}, [x, i], lambda: torch.gather(x, 1, i))
i0 = torch.randint(0, 4, (2, 6))
case("gather", {"dim": 0}, [x, i0], lambda: torch.gather(x, 0, i0))
x3 = rnd((2, 3, 4), torch.bfloat16)
i3 = torch.randint(0, 3, (2, 5, 4), dtype=torch.int32)
case("gather", {"dim": 1}, [x3, i3], lambda: torch.gather(x3, 1, i3.long()))
case("gather", {"dim": 1}, [x, torch.tensor([[6]])], lambda: torch.gather(x, 1, torch.tensor([[6]])))
case("gather", {"dim": 1}, [x, torch.tensor([[-1]])], lambda: torch.gather(x, 1, torch.tensor([[-1]])))

# take_along_axis (torch.take_along_dim)
x = rnd((4, 6))
i = torch.randint(0, 6, (4, 3))
case("take_along_axis", {"dim": 1}, [x, i], lambda: torch.take_along_dim(x, i, 1))
i1 = torch.randint(0, 4, (2, 6))
case("take_along_axis", {"dim": 0}, [x, i1], lambda: torch.take_along_dim(x, i1, 0))

# scatter (unique indices along dim, so the result does not depend on write order)
s = rnd((4, 6))
idx = torch.stack([torch.randperm(6)[:4] for _ in range(3)])
src = rnd((3, 5))
case("scatter", {"dim": 1}, [s, idx, src], lambda: torch.scatter(s, 1, idx, src))
idx0 = torch.stack([torch.randperm(4)[:3] for _ in range(6)], dim=1)
src0 = rnd((3, 6))
case("scatter", {"dim": 0}, [s, idx0, src0], lambda: torch.scatter(s, 0, idx0, src0))
case("scatter", {"dim": 1, "value": 2.5}, [s, idx], lambda: torch.scatter(s, 1, idx, 2.5))
si = rnd((4, 6), torch.int64)
src_int = rnd((3, 4), torch.int64)
case("scatter", {"dim": 1}, [si, idx, src_int], lambda: torch.scatter(si, 1, idx, src_int))

# index_put_accumulate: acc.index_put([index], value, accumulate=True)
for dtype in (torch.float32, torch.int64, torch.float64):
    acc = rnd((6, 5), dtype)
    ii = torch.tensor([1, 3, 1, 0, 5, 1, 3, 2])
    v = rnd((8, 5), dtype)
    case("index_put_accumulate", {}, [acc, ii, v], lambda: acc.index_put([ii], v, accumulate=True))
acc3 = rnd((4, 2, 3))
ii3 = torch.tensor([3, 3, 0])
v3 = rnd((3, 2, 3))
case("index_put_accumulate", {}, [acc3, ii3, v3], lambda: acc3.index_put([ii3], v3, accumulate=True))
case("index_put_accumulate", {}, [acc3, torch.tensor([4]), rnd((1, 2, 3))], lambda: acc3.index_put([torch.tensor([4])], torch.zeros(1, 2, 3), accumulate=True))

# embedding
for dtype in (torch.float32, torch.bfloat16, torch.float16):
    w = rnd((10, 4), dtype)
    inp = torch.tensor([[1, 9, 0], [1, 1, 7]])
    case("embedding_fwd", {}, [inp, w], lambda: torch.nn.functional.embedding(inp, w))
w = rnd((10, 4))
inp = torch.tensor([3, 0, 3, 9, 2], dtype=torch.int32)
case("embedding_fwd", {"padding_idx": 3}, [inp, w], lambda: torch.nn.functional.embedding(inp.long(), w, padding_idx=3))
case("embedding_fwd", {}, [torch.tensor([10]), w], lambda: torch.nn.functional.embedding(torch.tensor([10]), w))

OUT.write_text(json.dumps({"generator": f"torch {torch.__version__}: tools/torch-values/indexing_values.py", "cases": cases}, indent=1) + "\n")
print(f"wrote {len(cases)} cases to {OUT}")
