# Local mode: nvFuser's tests put everything on 'cuda'; on a machine without a GPU (PyTorch CPU
# build) every 'cuda' device becomes the CPU, and torch.cuda answers as an H200 would (sm_90,
# 141 GB), so the same skipif marks hold as on the GPU host.
#
# How: a TorchFunctionMode rewrites device='cuda' / .to('cuda') / .cuda() to the CPU and tags the
# results (CUDA_TAG), propagating the tag to what is computed from tagged tensors, so the
# stand-in's from_pytorch still tells a test's 'cuda' tensors from its deliberate CPU scalars.
# Invariant: installed only in local mode; values are computed by PyTorch on the CPU unchanged.

import torch
from torch.overrides import TorchFunctionMode

from nvfuser_direct._session import CUDA_TAG


def _is_cuda_device(d):
    if isinstance(d, torch.device):
        return d.type == "cuda"
    if isinstance(d, str):
        return d == "cuda" or d.startswith("cuda:")
    return False


def _tag(value):
    if isinstance(value, torch.Tensor):
        try:
            setattr(value, CUDA_TAG, True)
        except (AttributeError, RuntimeError):
            pass
    elif isinstance(value, (list, tuple)):
        for v in value:
            _tag(v)
    return value


def _any_tagged(values):
    for v in values:
        if isinstance(v, torch.Tensor) and getattr(v, CUDA_TAG, False):
            return True
        if isinstance(v, (list, tuple)) and _any_tagged(v):
            return True
    return False


class CudaAsCpu(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        mapped = False
        if _is_cuda_device(kwargs.get("device")):
            kwargs["device"] = "cpu"
            mapped = True
        name = getattr(func, "__name__", "")
        if name == "cuda":
            # A CPU tensor's .cuda() is a new (tagged) tensor; the original stays a CPU tensor.
            return args[0] if getattr(args[0], CUDA_TAG, False) else _tag(args[0].view_as(args[0]))
        if name in ("to", "_to_copy") and args:
            new_args = []
            for a in args:
                if _is_cuda_device(a):
                    new_args.append("cpu")
                    mapped = True
                else:
                    new_args.append(a)
            args = tuple(new_args)
        if name == "cpu" and args and getattr(args[0], CUDA_TAG, False):
            return args[0].view_as(args[0])  # untagged: the mode is off inside this call
        result = func(*args, **kwargs)
        if mapped or _any_tagged(args) or _any_tagged(kwargs.values()):
            if name == "cpu":
                return result
            _tag(result)
        return result


class _FakeProps:
    name = "NVIDIA H200 (harness local mode: CPU)"
    major = 9
    minor = 0
    total_memory = 150_000_000_000
    multi_processor_count = 132
    warp_size = 32


def install():
    mode = CudaAsCpu()
    mode.__enter__()
    c = torch.cuda
    c.is_available = lambda: True
    c.device_count = lambda: 1
    c.current_device = lambda: 0
    c.get_device_properties = lambda *a, **k: _FakeProps()
    c.get_device_capability = lambda *a, **k: (9, 0)
    c.get_device_name = lambda *a, **k: _FakeProps.name
    c.synchronize = lambda *a, **k: None
    c.empty_cache = lambda *a, **k: None
    c.manual_seed = lambda *a, **k: None
    c.manual_seed_all = lambda *a, **k: None
    c.mem_get_info = lambda *a, **k: (_FakeProps.total_memory, _FakeProps.total_memory)
    c.set_device = lambda *a, **k: None
    c.get_rng_state = lambda *a, **k: torch.get_rng_state()
    c.set_rng_state = lambda state, *a, **k: torch.set_rng_state(state)
    return mode
