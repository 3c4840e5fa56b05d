# Generates test-fixtures/torch-values/scan-sort.json: PyTorch's values for cumsum, cumprod,
# cummin, cummax, argsort and topk on small inputs with ties, NaN and infinities (the reference
# evaluator's oracle; CI has no PyTorch, so the JSON is committed). Outputs follow nvFuser's
# dtype rules: a scan's output has the input dtype (torch's Long cumsum of Int is cast back).
# Run: /tmp/torchvenv/bin/python tools/torch-values/scan-sort.py
import json
import math
import pathlib

import torch

DTYPES = {
    "Float": torch.float32,
    "Double": torch.float64,
    "Half": torch.float16,
    "BFloat16": torch.bfloat16,
    "Int32": torch.int32,
    "Int": torch.int64,
    "Bool": torch.bool,
}


def enc(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return v


def flat(t):
    t = t.contiguous().reshape(-1)
    if t.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        return [enc(float(x)) for x in t.double().tolist()]
    if t.dtype == torch.bool:
        return [bool(x) for x in t.tolist()]
    return [int(x) for x in t.tolist()]


g = torch.Generator().manual_seed(2026)


def rand_input(dtype, shape, kind):
    if kind == "ints":
        return torch.randint(-4, 5, shape, generator=g).to(DTYPES[dtype])
    if kind == "ties":
        return (torch.randint(0, 4, shape, generator=g).double() * 0.5).to(DTYPES[dtype])
    if kind == "small":
        return (torch.rand(shape, generator=g, dtype=torch.float64) * 0.5 + 0.75).to(DTYPES[dtype])
    x = torch.randn(shape, generator=g, dtype=torch.float64).to(DTYPES[dtype])
    if kind == "special":
        xf = x.reshape(-1)
        xf[3] = float("nan")
        xf[7] = float("inf")
        xf[min(11, xf.numel() - 1)] = float("-inf")
        xf[1] = -0.0
    return x


cases = []


def add(name, op, dtype, shape, kind, **kw):
    x = rand_input(dtype, shape, kind)
    case = {"name": name, "op": op, "dtype": dtype, "shape": list(shape), "input": flat(x), **kw}
    if op in ("cumsum", "cumprod", "cummin", "cummax"):
        dim = kw["dim"]
        if op == "cumsum":
            y = torch.cumsum(x, dim)
        elif op == "cumprod":
            y = torch.cumprod(x, dim)
        elif op == "cummin":
            y = torch.cummin(x, dim).values
        else:
            y = torch.cummax(x, dim).values
        case["expected"] = flat(y.to(x.dtype))
    elif op == "argsort":
        y = torch.argsort(x, dim=kw["dim"], descending=kw["descending"], stable=True)
        case["expected"] = flat(y)
    elif op == "topk":
        v, i = torch.topk(x, kw["k"], dim=kw["dim"], largest=kw["largest"], sorted=True)
        case["expected"] = flat(v)
        case["expectedIndices"] = flat(i)
    cases.append(case)


for dt in ("Float", "Double", "Half", "BFloat16"):
    add(f"cumsum_{dt}_rows", "cumsum", dt, (3, 37), "normal", dim=1)
    add(f"cumsum_{dt}_dim0", "cumsum", dt, (9, 5), "normal", dim=0)
add("cumsum_Float_special", "cumsum", "Float", (2, 16), "special", dim=-1)
add("cumsum_Float_mid_dim", "cumsum", "Float", (2, 6, 3), "normal", dim=1)
add("cumsum_Int32", "cumsum", "Int32", (4, 10), "ints", dim=1)
add("cumsum_Int", "cumsum", "Int", (4, 10), "ints", dim=0)
add("cumprod_Float", "cumprod", "Float", (3, 20), "small", dim=1)
add("cumprod_Double_special", "cumprod", "Double", (2, 16), "special", dim=1)
add("cumprod_Int", "cumprod", "Int", (3, 12), "ints", dim=1)
for op in ("cummax", "cummin"):
    add(f"{op}_Float", op, "Float", (3, 25), "normal", dim=1)
    add(f"{op}_Float_special", op, "Float", (2, 16), "special", dim=1)
    add(f"{op}_Half_dim0", op, "Half", (8, 3), "normal", dim=0)
    add(f"{op}_Int32", op, "Int32", (3, 11), "ints", dim=-1)
    add(f"{op}_Int", op, "Int", (3, 11), "ints", dim=1)
for desc in (False, True):
    d = "desc" if desc else "asc"
    add(f"argsort_Float_ties_{d}", "argsort", "Float", (4, 19), "ties", dim=1, descending=desc)
    add(f"argsort_Float_special_{d}", "argsort", "Float", (2, 16), "special", dim=1, descending=desc)
    add(f"argsort_Double_dim0_{d}", "argsort", "Double", (7, 3), "normal", dim=0, descending=desc)
    add(f"argsort_Half_ties_{d}", "argsort", "Half", (3, 12), "ties", dim=-1, descending=desc)
    add(f"argsort_Int_{d}", "argsort", "Int", (3, 15), "ints", dim=1, descending=desc)
    add(f"argsort_Int32_{d}", "argsort", "Int32", (3, 15), "ints", dim=1, descending=desc)
for largest in (True, False):
    w = "largest" if largest else "smallest"
    add(f"topk_Float_{w}", "topk", "Float", (4, 40), "normal", k=5, dim=1, largest=largest)
    add(f"topk_Float_special_{w}", "topk", "Float", (2, 16), "special", k=4, dim=1, largest=largest)
    add(f"topk_Float_ties_{w}", "topk", "Float", (3, 21), "ties", k=6, dim=-1, largest=largest)
    add(f"topk_Double_dim0_{w}", "topk", "Double", (9, 4), "normal", k=3, dim=0, largest=largest)
    add(f"topk_BFloat16_{w}", "topk", "BFloat16", (2, 33), "normal", k=8, dim=1, largest=largest)
    add(f"topk_Int_{w}", "topk", "Int", (3, 17), "ints", k=4, dim=1, largest=largest)
add("topk_Float_k_all", "topk", "Float", (2, 9), "normal", k=9, dim=1, largest=True)
add("topk_Float_k0", "topk", "Float", (2, 9), "normal", k=0, dim=1, largest=True)

out = {
    "generator": f"torch {torch.__version__}: tools/torch-values/scan-sort.py (torch.cumsum/cumprod/cummin/cummax cast to the input dtype, argsort stable=True, topk sorted=True)",
    "cases": cases,
}
path = pathlib.Path(__file__).resolve().parents[2] / "test-fixtures" / "torch-values" / "scan-sort.json"
path.write_text(json.dumps(out, indent=1) + "\n")
print(f"wrote {len(cases)} cases to {path}")
