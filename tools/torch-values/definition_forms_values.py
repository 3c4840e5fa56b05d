"""Expected values for the nvFuser definition forms of issue 36, computed by PyTorch (CPU):
rsqrt of complex tensors, prod over every dim with a dtype (fd.ops.prod(T0, DataType.Double)),
embedding with max_norm (F.embedding renormalizes the looked-up rows; nvFuser's
EmbeddingFwdOp::evaluate calls F.embedding with max_norm), and F.pad / torch.cat along a size-1
(broadcast) dim, also expanded, and F.pad with widths given at run time (deterministic inputs:
arange * 0.5 - 3). Read by
packages/tsfuser/test/definition-forms.test.ts; CI has no PyTorch, so the output,
test-fixtures/torch-values/definition-forms.json, is committed. Regenerate with

    /work/torchvenv/bin/python tools/torch-values/definition_forms_values.py

Tensors are {shape, dtype, values} (row-major; complex values interleaved (re, im) pairs).
"""

import json
import pathlib

import torch
import torch.nn.functional as F

SEED = 3636
torch.manual_seed(SEED)
OUT = pathlib.Path(__file__).resolve().parents[2] / "test-fixtures" / "torch-values" / "definition-forms.json"
DTYPES = {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half", torch.bfloat16: "BFloat16",
          torch.complex64: "ComplexFloat", torch.complex128: "ComplexDouble", torch.int64: "Int"}


def t(x):
    flat = x.detach().reshape(-1)
    if x.is_complex():
        vals = torch.view_as_real(flat).reshape(-1).tolist()
    elif x.dtype in (torch.float16, torch.bfloat16):
        vals = flat.to(torch.float64).tolist()
    else:
        vals = flat.tolist()
    return {"shape": list(x.shape), "dtype": DTYPES[x.dtype], "values": vals}


cases = []
for dtype in (torch.complex64, torch.complex128):
    real = torch.float32 if dtype == torch.complex64 else torch.float64
    z = torch.complex(torch.randn(4, 6, dtype=real), torch.randn(4, 6, dtype=real))
    z[0, 0] = complex(-4.0, 0.0)  # the branch cut: rsqrt(-4) = -0.5j
    z[0, 1] = complex(0.25, 0.0)
    cases.append({"op": "rsqrt", "inputs": [t(z)], "output": t(torch.rsqrt(z))})

for dtype in (torch.float32, torch.float16):
    x = (torch.rand(3, 5) + 0.5).to(dtype)
    cases.append({"op": "prod", "args": {"dtype": "Double"}, "inputs": [t(x)], "output": t(torch.prod(x.to(torch.float64)))})

for dtype in (torch.float32, torch.float16):
    for norm_type in (2.0, 1.0, 3.0):
        weight = (torch.randn(10, 7) * 2).to(dtype)
        idx = torch.tensor([[1, 4, 1], [9, 0, 4]])
        out = F.embedding(idx, weight.clone(), max_norm=1.5, norm_type=norm_type)
        cases.append({"op": "embedding_max_norm", "args": {"max_norm": 1.5, "norm_type": norm_type},
                      "inputs": [t(idx), t(weight)], "output": t(out)})

def ramp(*shape):
    n = 1
    for d in shape:
        n *= d
    return (torch.arange(n, dtype=torch.float32) * 0.5 - 3).reshape(shape)


for widths, value in (([1, 2], 0.0), ([2, 0, 1, 1], -1.5), ([-1, 1], 7.0), ([0, 0, 0, 3], 0.0)):
    x = ramp(3, 1)
    cases.append({"op": "pad_broadcast", "args": {"widths": widths, "value": value}, "inputs": [t(x)], "output": t(F.pad(x, widths, value=value))})
x = ramp(3, 1)
cases.append({"op": "pad_expanded", "args": {"widths": [1, 1], "expand": [3, 4], "value": 0.0}, "inputs": [t(x)],
              "output": t(F.pad(x.expand(3, 4), [1, 1], value=0.0))})
y = ramp(3, 4) + 100
cases.append({"op": "cat_broadcast", "args": {"dim": 1, "order": "xy"}, "inputs": [t(x), t(y)], "output": t(torch.cat([x, y], 1))})
cases.append({"op": "cat_broadcast", "args": {"dim": 1, "order": "yx"}, "inputs": [t(x), t(y)], "output": t(torch.cat([y, x], 1))})

for widths in ([1, 2], [-1, 2, 2, 0], [0, 3, 1, -2]):
    z = ramp(3, 5)
    cases.append({"op": "pad_runtime", "args": {"widths": widths, "value": 2.5}, "inputs": [t(z)], "output": t(F.pad(z, widths, value=2.5))})

OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps({"torch": torch.__version__, "seed": SEED, "cases": cases}, indent=None) + "\n")
print(f"wrote {len(cases)} cases to {OUT}")
