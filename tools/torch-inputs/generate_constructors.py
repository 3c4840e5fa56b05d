"""The inputs-line constructors and methods of nvFuser's tests, run by CPython with PyTorch: for
each `inputs = [...]` line, the sizes, strides, dtype and (for deterministic data) the row-major
values of every tensor. Also writes the .npy files the torch.from_numpy(numpy.load(...)) cases
read (C order, Fortran order, int64, bool, complex64, float16). Writes
test-fixtures/torch-inputs/constructors.json and test-fixtures/torch-inputs/npy/*.npy, read by
packages/tsfuser/test/python-inputs-constructors.test.ts (CI has no torch).

The scripts are written as a repro script writes them (.cuda(), device='cuda',
'torch.cuda.HalfTensor'); this CPU run drops the device parts first.

Run: /work/torchvenv/bin/python tools/torch-inputs/generate_constructors.py
"""
import json
import os

import numpy
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "test-fixtures", "torch-inputs")

# (name, inputs-line expression list, values deterministic?)
CASES = [
    ("torch.tensor of ints is int64", "[torch.tensor([[1, 2, 3], [4, 5, 6]], device='cuda')]", True),
    ("torch.tensor of ints and floats is float32", "[torch.tensor([1, 2.5, -3])]", True),
    ("torch.tensor of bools is bool", "[torch.tensor([True, False, True])]", True),
    ("torch.tensor of bools and ints is int64", "[torch.tensor([True, 2, False])]", True),
    ("torch.tensor of one float is 0-dim", "[torch.tensor(3.5)]", True),
    ("torch.tensor with dtype= rounds to it", "[torch.tensor([1, 2.7, -2.7], dtype=torch.float16), torch.tensor([1.9, -1.9], dtype=torch.int32)]", True),
    ("torch.tensor of complex numbers is complex64", "[torch.tensor([1 + 2j, 3, -1j])]", True),
    ("torch.tensor of nothing is an empty float32", "[torch.tensor([]), torch.tensor([[], []])]", True),
    ("clone keeps a dense permutation's strides", "[torch.tensor([[1., 2.], [3., 4.], [5., 6.]]).t().clone()]", True),
    ("clone of a strided slice gets dense strides in the slice's order", "[torch.arange(24.).reshape(4, 6).t()[:, ::2].clone()]", True),
    ("clone of an expanded tensor is contiguous", "[torch.tensor([[1.], [2.]]).expand(2, 3).clone()]", True),
    ("reshape of a transpose that splits a dim is a view", "[torch.arange(12.).reshape(3, 4).t().reshape(2, 2, 3)]", True),
    ("reshape of a transpose across dims copies", "[torch.arange(12.).reshape(3, 4).t().reshape(12), torch.arange(6).reshape(2, -1).t().reshape(-1, 2)]", True),
    ("view with -1", "[torch.arange(12.).view(-1, 6), torch.arange(12.).view((2, 3, 2))]", True),
    ("to(float64) of a strided view keeps the view's dim order", "[torch.arange(12.).reshape(3, 4).t()[:, ::2].to(torch.float64)]", True),
    ("type with a tensor-type string and a dtype", "[torch.arange(4).type('torch.cuda.HalfTensor'), torch.arange(4.).type(torch.int32), torch.arange(3).type('torch.DoubleTensor')]", True),
    ("comparison of a transposed tensor with a float keeps the strides", "[torch.arange(6.).reshape(2, 3).t() > 2.5]", True),
    ("arithmetic with a scalar keeps the strides and rounds like PyTorch", "[torch.arange(6.).reshape(2, 3).t() * 0.1 + 1, 1 - torch.arange(5.) / 3, 2.5 * torch.arange(4.)]", True),
    ("arithmetic promotes: int tensor with a float scalar is float32, true division of ints is float32", "[torch.arange(5) * 2, torch.arange(5) + 0.5, torch.arange(6).reshape(2, 3) / 4, torch.tensor([True, False]) + 1]", True),
    ("arithmetic of half and bfloat16 is computed in float32 and rounded once", "[torch.arange(7.).to(torch.float16) * 0.1 + 3, torch.arange(7.).to(torch.bfloat16) / 3 - 0.7, 0.3 - torch.arange(-3., 4.).to(torch.bfloat16) / 0.7]", True),
    ("a scalar on the left is flipped", "[2 <= torch.tensor([1, 2, 3]), 0.5 > torch.tensor([0.25, 0.5, 0.75])]", True),
    ("a half tensor compares with the scalar rounded to half", "[torch.tensor([0.3, 0.1], dtype=torch.float16) == 0.3, torch.tensor([0.3], dtype=torch.float32) == 0.3]", True),
    ("an int tensor against a float scalar compares in float", "[torch.tensor([1, 2, 3]) > 1.5, torch.tensor([16777217]) == 16777216.0, torch.tensor([True, False]) == 1]", True),
    ("comparisons of random tensors are bool with the tensor's strides", "[torch.rand(4, 5, device='cuda') > 0.3, torch.randn(3, 4).t() < 0]", False),
    ("topk indices and values", "[torch.topk(torch.tensor([[3., 1., 2.], [0., 5., 4.]]), 2)[1], torch.topk(torch.tensor([[3., 1., 2.], [0., 5., 4.]]), 2)[0]]", True),
    ("topk along dim 0, smallest, .values and .indices", "[torch.topk(torch.tensor([[3., 1.], [0., 5.], [4., 2.]]), 2, dim=0, largest=False).values, torch.topk(torch.tensor([[3., 1.], [0., 5.], [4., 2.]]), k=1, dim=0).indices]", True),
    ("topk of a random tensor: int64 indices", "[torch.topk(torch.randn(4, 8, device='cuda'), 3, dim=1)[1], torch.randn(5, 6).topk(2)[0]]", False),
    ("fp8, complex and uint64 dtypes", "[torch.randn(2, 3, device='cuda').to(torch.float8_e4m3fn), torch.zeros(2, dtype=torch.uint64), torch.randn(3, dtype=torch.complex64), torch.ones(2, 2, dtype=torch.complex128), torch.rand(4).to(torch.float8_e5m2)]", False),
    ("fp8 values from torch.tensor", "[torch.tensor([0.5, 1.1, -3.3, 500.0]).to(torch.float8_e4m3fn), torch.tensor([0.5, 1.1, -3.3]).to(torch.float8_e5m2)]", True),
    ("from_numpy reads a C-order array, then .cuda()", "[torch.from_numpy(numpy.load('npy/c_order_f32.npy')).cuda()]", True),
    ("from_numpy of a Fortran-order array keeps its strides", "[torch.from_numpy(numpy.load('npy/fortran_f32.npy')), torch.from_numpy(numpy.load('npy/fortran_f32.npy')).contiguous()]", True),
    ("from_numpy then views: t, permute, as_strided, expand", "[torch.from_numpy(numpy.load('npy/c_order_f32.npy')).t(), torch.from_numpy(numpy.load('npy/c_order_f32.npy')).permute(1, 0).contiguous(), torch.from_numpy(numpy.load('npy/c_order_f32.npy')).as_strided((2, 2), (1, 3)), torch.from_numpy(numpy.load('npy/row_f32.npy')).expand(3, 4)]", True),
    ("from_numpy of int64, bool, complex64 and float16 data, then .to()", "[torch.from_numpy(numpy.load('npy/i64.npy')).to(torch.float32), torch.from_numpy(numpy.load('npy/b1.npy')), torch.from_numpy(numpy.load('npy/c64.npy')), torch.from_numpy(numpy.load('npy/f16.npy')).to('cuda', torch.float32)]", True),
]


def cpu(text):
    return text.replace(".cuda()", "").replace("device='cuda'", "device='cpu'").replace("'torch.cuda.", "'torch.").replace("'cuda', ", "")


def value(v):
    if isinstance(v, complex):
        return [v.real, v.imag]
    return v


def describe(t, values):
    d = {"sizes": list(t.shape), "strides": list(t.stride()), "dtype": str(t.dtype).replace("torch.", "")}
    if values:
        flat = t.contiguous().reshape(-1)
        if t.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            flat = flat.to(torch.float32)
        d["values"] = [value(x) for x in flat.tolist()]
    return d


def write_npy():
    out = os.path.join(FIXTURES, "npy")
    os.makedirs(out, exist_ok=True)
    base = numpy.arange(12, dtype=numpy.float32).reshape(3, 4) / 4 - 1
    numpy.save(os.path.join(out, "c_order_f32.npy"), base)
    numpy.save(os.path.join(out, "fortran_f32.npy"), numpy.asfortranarray(base))
    numpy.save(os.path.join(out, "row_f32.npy"), numpy.array([[0.5, -1.5, 2.25, 4.0]], dtype=numpy.float32))
    numpy.save(os.path.join(out, "i64.npy"), numpy.array([[-3, 7], [2**40, 5]], dtype=numpy.int64))
    numpy.save(os.path.join(out, "b1.npy"), numpy.array([True, False, False, True]))
    numpy.save(os.path.join(out, "c64.npy"), numpy.array([1 + 2j, -0.5j, 3], dtype=numpy.complex64))
    numpy.save(os.path.join(out, "f16.npy"), numpy.array([0.1, 65504, -2.5], dtype=numpy.float16))


def main():
    write_npy()
    os.chdir(FIXTURES)  # numpy.load paths are relative to the script's directory
    cases = []
    for name, line, deterministic in CASES:
        inputs = eval(cpu(line), {"torch": torch, "numpy": numpy})  # noqa: S307 - our own fixed lines
        cases.append({"name": name, "inputs": line, "expected": [describe(t, deterministic) for t in inputs]})
    with open(os.path.join(FIXTURES, "constructors.json"), "w") as f:
        json.dump({"torch": torch.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
