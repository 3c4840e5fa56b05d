# Python values as python_definition text, and the handles (TensorView, Scalar, Vector) the
# recording frontend hands to nvFuser's tests.
#
# Invariant: `fmt(v)` is Python source that tsfuser's definition importer (and CPython, when a test
# execs `repr(fd)`) reads back as the same value; a value with no such text is HarnessUnsupported,
# never a guess.

import enum
import math

import torch

from ._session import HarnessUnsupported


class DataType(enum.Enum):
    """nvFuser's DataType names (python/python_direct/enum.cpp); printed as `DataType.<name>`."""

    Double = "Double"
    Float = "Float"
    Half = "Half"
    Int = "Int"
    Index = "Index"
    Int32 = "Int32"
    UInt64 = "UInt64"
    Bool = "Bool"
    BFloat16 = "BFloat16"
    Float8_e4m3fn = "Float8_e4m3fn"
    Float8_e5m2 = "Float8_e5m2"
    Float8_e8m0fnu = "Float8_e8m0fnu"
    Float4_e2m1fn = "Float4_e2m1fn"
    Float4_e2m1fn_x2 = "Float4_e2m1fn_x2"
    ComplexFloat = "ComplexFloat"
    ComplexDouble = "ComplexDouble"
    Null = "Null"

    def __repr__(self):
        return f"DataType.{self.name}"

    __str__ = __repr__


class Handle:
    """A value of the definition being recorded: printed by its name."""

    def __init__(self, fd, name, dtype=None, rank=None):
        self._fd = fd
        self.name = name
        self._dtype = dtype
        self._rank = rank

    def __repr__(self):
        return self.name

    # nvFuser's python values support arithmetic operators (they build the same ops).
    def _binary(self, op, other, reflected=False):
        args = (other, self) if reflected else (self, other)
        return getattr(self._fd.ops, op)(*args)

    def __add__(self, o):
        return self._binary("add", o)

    def __radd__(self, o):
        return self._binary("add", o, True)

    def __sub__(self, o):
        return self._binary("sub", o)

    def __rsub__(self, o):
        return self._binary("sub", o, True)

    def __mul__(self, o):
        return self._binary("mul", o)

    def __rmul__(self, o):
        return self._binary("mul", o, True)

    def __truediv__(self, o):
        return self._binary("div", o)

    def __rtruediv__(self, o):
        return self._binary("div", o, True)

    def __neg__(self):
        return self._fd.ops.neg(self)

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other


class TensorView(Handle):
    def is_tensor(self):
        return True

    def shape(self):
        return self._fd.ops.shape(self)

    def size(self, dim):
        return self._fd.ops.size(self, dim)

    def dtype(self):
        if self._dtype is None:
            raise HarnessUnsupported(f"{self.name}.dtype(): the stand-in does not infer op result dtypes")
        return self._dtype

    @property
    def ndim(self):
        if self._rank is None:
            raise HarnessUnsupported(f"{self.name}.ndim: the stand-in does not infer op result ranks")
        return self._rank

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise HarnessUnsupported(f"TensorView.{name} (nvFuser IR introspection) is not recorded")


class Scalar(Handle):
    def is_tensor(self):
        return False

    def is_symbolic(self):
        return self._rank == "symbolic"


class Vector(Handle):
    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise HarnessUnsupported(f"Vector.{name} is not recorded")


_TORCH_DTYPE_NAMES = {
    torch.float32: "float32",
    torch.float64: "float64",
    torch.float16: "float16",
    torch.bfloat16: "bfloat16",
    torch.int32: "int32",
    torch.int64: "int64",
    torch.bool: "bool",
    torch.complex64: "complex64",
    torch.complex128: "complex128",
    torch.uint64: "uint64",
    torch.float8_e4m3fn: "float8_e4m3fn",
    torch.float8_e5m2: "float8_e5m2",
    torch.float8_e8m0fnu: "float8_e8m0fnu",
}


def fmt_float(x):
    if math.isnan(x):
        return "float('nan')"
    if math.isinf(x):
        return "float('inf')" if x > 0 else "float('-inf')"
    return repr(float(x))


def fmt(v):
    """Python source text of an op argument."""
    if isinstance(v, Handle):
        return v.name
    if isinstance(v, DataType):
        return repr(v)
    if isinstance(v, torch.dtype):
        name = _TORCH_DTYPE_NAMES.get(v)
        if name is None:
            raise HarnessUnsupported(f"torch dtype {v} as an op argument")
        return f"torch.{name}"
    if v is None or isinstance(v, bool):
        return repr(v)
    if isinstance(v, int):
        return repr(int(v))
    if isinstance(v, float):
        return fmt_float(v)
    if isinstance(v, complex):
        return f"complex({fmt_float(v.real)}, {fmt_float(v.imag)})"
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, torch.Size):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    if isinstance(v, list):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    if isinstance(v, tuple):
        inner = ", ".join(fmt(x) for x in v)
        return "(" + inner + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, enum.Enum):
        return f"{type(v).__name__}.{v.name}"
    if isinstance(v, torch.Tensor):
        raise HarnessUnsupported("a torch.Tensor as an op argument inside a definition")
    if hasattr(v, "__index__"):
        return repr(int(v))
    raise HarnessUnsupported(f"an op argument of type {type(v).__name__}")


def call_text(callee, args, kwargs):
    parts = [fmt(a) for a in args] + [f"{k}={fmt(v)}" for k, v in kwargs.items()]
    return f"{callee}({', '.join(parts)})"


def contains_tensor(v):
    if isinstance(v, TensorView):
        return True
    if isinstance(v, (list, tuple)):
        return any(contains_tensor(x) for x in v)
    return False


def dtypes_in(v, out):
    """Collect the DataType / torch dtype names an argument mentions (for the op-family split)."""
    if isinstance(v, DataType):
        out.add(v.name)
    elif isinstance(v, torch.dtype):
        out.add(str(v).replace("torch.", ""))
    elif isinstance(v, (list, tuple)):
        for x in v:
            dtypes_in(x, out)
