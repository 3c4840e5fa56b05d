# fd.execute for the stand-in: writes the recorded definition and the test's real inputs, runs
# `tsfuser run`, and returns its outputs as torch tensors with the strides tsfuser reports.
#
# Inputs travel two ways. When every tensor input is dense (C-contiguous) and no scalar is complex,
# through `--inputs a.npy,2.5,...` (bfloat16 / fp8 as the bit patterns tsfuser's .npy reader takes,
# `<u2` / `|u1`). Otherwise through the script's own `inputs = [...]` line: each tensor is the
# storage span it views, saved flat, then `torch.from_numpy(numpy.load('inK.npy'))`,
# `.to(dtype)` for bfloat16 / fp8 (saved as exact float32) and `.as_strided(size, stride)`, so
# strided, expanded and offset inputs reach tsfuser with their layout.
# Outputs come back from `--save-outputs` (.npy, dense) and are rebuilt with the strides of the
# `fusion_args` dump's Outputs block.
#
# Invariant: the tensors returned hold exactly what tsfuser wrote (bit patterns for bf16 / fp8),
# on the device of the test's inputs; a tsfuser failure is a TsfuserError carrying its last line.
# A repeated execute of identical text and inputs runs tsfuser once more and must give identical
# bits; later repeats are answered from that memo (noted).

import hashlib
import os
import re
import subprocess
import time

import numpy
import torch

from ._session import CUDA_TAG, Event, HarnessUnsupported, TooLarge, TsfuserError, current

# torch dtype -> (npy conversion for --inputs, descr kind). bf16 / fp8 as their bit patterns.
_BITS_VIEW = {
    torch.bfloat16: (torch.int16, numpy.uint16),
    torch.float8_e4m3fn: (torch.uint8, numpy.uint8),
    torch.float8_e5m2: (torch.uint8, numpy.uint8),
    torch.float8_e8m0fnu: (torch.uint8, numpy.uint8),
}
_NATIVE = {torch.float32, torch.float64, torch.float16, torch.int32, torch.int64, torch.bool, torch.complex64, torch.complex128, torch.uint64}
_LINE_NAMES = {
    torch.bfloat16: "torch.bfloat16",
    torch.float8_e4m3fn: "torch.float8_e4m3fn",
    torch.float8_e5m2: "torch.float8_e5m2",
    torch.float8_e8m0fnu: "torch.float8_e8m0fnu",
}
# fusion_args dtype names -> torch dtype.
_NVF_TO_TORCH = {
    "Float": torch.float32,
    "Double": torch.float64,
    "Half": torch.float16,
    "BFloat16": torch.bfloat16,
    "Int": torch.int64,
    "Index": torch.int64,
    "Int32": torch.int32,
    "Bool": torch.bool,
    "ComplexFloat": torch.complex64,
    "ComplexDouble": torch.complex128,
    "UInt64": torch.uint64,
    "Float8_e4m3fn": torch.float8_e4m3fn,
    "Float8_e5m2": torch.float8_e5m2,
    "Float8_e8m0fnu": torch.float8_e8m0fnu,
}
# tsfuser's refusals for size (its allocation limits, the reference evaluator's work limit): too-large, not refused.
_TOO_LARGE = re.compile(r"more than the evaluator's limit|allocation limit|per-tensor limit|is too large|the reference backend's copy of input \d+ needs|more than the limit of")
_OUT_LINE = re.compile(r"^\s+(\w+) \[([^\]]*)\] \(strides = \[([^\]]*)\]\)")


def is_cuda_tensor(t):
    if current().local_cuda_as_cpu:
        return bool(getattr(t, CUDA_TAG, False)) or t.is_cuda
    return t.is_cuda


def _ints(text):
    return [int(x) for x in text.split(",") if x.strip() != ""]


def _digest(t):
    h = hashlib.blake2b(digest_size=16)
    h.update(repr((str(t.dtype), tuple(t.shape), t.stride(), t.storage_offset())).encode())
    if t.numel() > 0:
        span = _span(t)
        h.update(_bits(span).tobytes())
    return h.hexdigest()


def _span(t):
    """The storage elements `t` views, as a flat dense CPU tensor (offset 0), for as_strided."""
    t = t.detach()
    if t.numel() == 0:
        return torch.empty(0, dtype=t.dtype)
    extent = 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride()))
    flat = torch.as_strided(t, (extent,), (1,), t.storage_offset())
    return flat.cpu().contiguous()


def _bits(t):
    """A CPU tensor as a numpy array tsfuser's .npy reader takes (bf16 / fp8 as bit patterns)."""
    if t.dtype in _BITS_VIEW:
        view, np_dtype = _BITS_VIEW[t.dtype]
        return t.view(view).numpy().view(np_dtype)
    if t.dtype in _NATIVE:
        return t.numpy()
    raise HarnessUnsupported(f"an input of dtype {t.dtype} (no .npy form tsfuser reads)")


def _scalar_text(v):
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if v != v else ("inf" if v == float("inf") else ("-inf" if v == float("-inf") else repr(v)))
    raise HarnessUnsupported(f"a scalar input of type {type(v).__name__}")


def _scalar_line(v):
    from ._record import fmt

    return fmt(v)


class _Encoded:
    def __init__(self, entries, line, files, nbytes):
        self.entries = entries  # --inputs entries, or None (inputs line)
        self.line = line  # the inputs line text, or None
        self.files = files  # (path, numpy array)
        self.nbytes = nbytes


def _encode(inputs, folder, session):
    dense_ok = True
    for v in inputs:
        if isinstance(v, torch.Tensor):
            if not v.is_contiguous():
                dense_ok = False
        elif isinstance(v, complex):
            dense_ok = False
        elif not isinstance(v, (bool, int, float)):
            raise HarnessUnsupported(f"an input of type {type(v).__name__}")
    nbytes = sum(v.numel() * v.element_size() for v in inputs if isinstance(v, torch.Tensor))
    if nbytes > session.max_input_bytes:
        raise TooLarge(f"inputs of {nbytes} bytes (harness limit {session.max_input_bytes})")
    entries, exprs, files = [], [], []
    for k, v in enumerate(inputs):
        if not isinstance(v, torch.Tensor):
            entries.append(_scalar_text(v) if dense_ok else None)
            exprs.append(_scalar_line(v))
            continue
        path = f"in{k}.npy"
        if dense_ok:
            files.append((path, _bits(v.detach().cpu().contiguous())))
            entries.append(path)
            continue
        span = _span(v)
        expr = f"torch.from_numpy(numpy.load('{path}'))"
        if span.dtype in _LINE_NAMES:
            files.append((path, span.to(torch.float32).numpy()))
            expr += f".to({_LINE_NAMES[span.dtype]})"
        else:
            files.append((path, _bits(span)))
        if v.dim() != 1 or v.stride() != (1,) or v.storage_offset() != 0 or v.numel() != span.numel():
            expr += f".as_strided({tuple(v.shape)!r}, {tuple(v.stride())!r})"
        exprs.append(expr)
    line = None if dense_ok else "inputs = [\n" + "".join(f"    {e},\n" for e in exprs) + "]\n"
    return _Encoded(entries if dense_ok else None, line, files, nbytes)


def _script(fd, encoded):
    text = "import torch\nimport numpy\nfrom nvfuser import FusionDefinition, DataType\n\n"
    text += fd.definition_text()
    text += "\nwith FusionDefinition() as fd:\n    nvfuser_fusion(fd)\n"
    if encoded.line is not None:
        text += "\n" + encoded.line + "fd.execute(inputs)\n"
    return text


def _output_layouts(stdout):
    """(dtype name, shape, strides) of each output in the last fusion_args Outputs block."""
    layouts, block = None, None
    for line in stdout.splitlines():
        if line.startswith("Arguments for fusion"):
            block = None
        elif line.strip() == "Outputs:":
            block = []
            layouts = block
        elif block is not None:
            m = _OUT_LINE.match(line)
            if m is None:
                block = None
            else:
                block.append((m.group(1), _ints(m.group(2)), _ints(m.group(3))))
    return layouts


def _with_strides(vals, strides):
    """`vals` (dense) laid out with `strides` (stride-0 dims expanded), as tsfuser returned it."""
    if vals.dim() == 0 or list(vals.stride()) == list(strides) or vals.numel() == 0:
        return vals if vals.numel() > 0 or vals.dim() == 0 else torch.empty_strided(vals.shape, strides, dtype=vals.dtype)
    zero = [d for d, s in enumerate(strides) if s == 0 and vals.shape[d] != 1]
    base = vals
    for d in zero:
        base = base.narrow(d, 0, 1)
    compact = [1 if d in zero else s for d, s in enumerate(strides)]
    out = torch.empty_strided(base.shape, compact, dtype=vals.dtype)
    out.copy_(base)
    return out.expand(vals.shape) if zero else out


def _load_output(path, dtype_name):
    arr = numpy.load(path)
    dtype = _NVF_TO_TORCH.get(dtype_name)
    if dtype is None and arr.dtype == numpy.uint16:
        dtype = torch.bfloat16  # tsfuser writes bfloat16 as <u2 bit patterns (its only <u2 output)
    if dtype is None and arr.dtype == numpy.uint8:
        raise HarnessUnsupported("an fp8 output without the fusion_args dump (which fp8 kind is unknown)")
    if dtype in _BITS_VIEW:
        view, _ = _BITS_VIEW[dtype]
        return torch.from_numpy(arr.copy()).view(view).view(dtype)
    return torch.from_numpy(arr.copy())


def _run_tsfuser(fd, inputs, folder, session):
    os.makedirs(folder, exist_ok=True)
    encoded = _encode(inputs, folder, session)
    script = _script(fd, encoded)
    for path, arr in encoded.files:
        numpy.save(os.path.join(folder, path), arr, allow_pickle=False)
    with open(os.path.join(folder, "def.py"), "w") as f:
        f.write(script)
    outdir = os.path.join(folder, "out")
    cmd = list(session.tsfuser) + ["run", os.path.join(folder, "def.py"), "--backend", session.backend, "--save-outputs", outdir, "--dump", "fusion_args"]
    if encoded.entries is not None and len(encoded.entries) > 0:
        cmd += ["--inputs", ",".join(encoded.entries)]
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    wall = time.monotonic() - start
    with open(os.path.join(folder, "tsfuser.log"), "w") as f:
        f.write("$ " + " ".join(cmd) + "\n" + proc.stdout + "\n--- stderr\n" + proc.stderr + f"\n--- rc {proc.returncode}\n")
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()] or [ln for ln in proc.stdout.splitlines() if ln.strip()] or [f"exit {proc.returncode}"]
        tsf = [ln for ln in lines if ln.startswith("tsfuser") or ": " in ln]
        message = (tsf or lines)[-1][:600]
        if proc.returncode < 0 or proc.returncode > 2:
            message = f"exit {proc.returncode}: {message}"
        raise TsfuserError(message, too_large=bool(_TOO_LARGE.search(message)))
    layouts = _output_layouts(proc.stdout)
    names = sorted((n for n in os.listdir(outdir) if re.fullmatch(r"out\d+\.npy", n)), key=lambda n: int(n[3:-4])) if os.path.isdir(outdir) else []
    if layouts is None or len(layouts) != len(names):
        why = next((ln.strip() for ln in proc.stdout.splitlines() if ln.startswith("fusion_args:")), "fusion_args dump missing")
        session.note(f"output strides unknown, taken as dense ({why[:240]})")
        layouts = [(None, None, None)] * len(names)
    outs = []
    for name, (dtype_name, shape, strides) in zip(names, layouts):
        t = _load_output(os.path.join(outdir, name), dtype_name)
        if strides is not None and list(t.shape) == shape:
            t = _with_strides(t, strides)
        outs.append(t)
    return outs, encoded, wall


def _snapshot(outs):
    """Dense copies with the strides they had (a clone of an expanded tensor is dense)."""
    return [(o.contiguous().clone(), list(o.stride())) for o in outs]


def _restore(snapshot):
    return [_with_strides(v.clone(), st) for v, st in snapshot]


def _same_bits(snapshot, outs):
    if len(snapshot) != len(outs):
        return False
    for (x, stride), y in zip(snapshot, outs):
        if x.dtype != y.dtype or x.shape != y.shape or stride != list(y.stride()):
            return False
        if x.numel() and not numpy.array_equal(_bits(x.contiguous()).reshape(-1).view(numpy.uint8), _bits(y.contiguous()).reshape(-1).view(numpy.uint8)):
            return False
    return True


def _target_device(inputs, device):
    if current().local_cuda_as_cpu:
        return None
    if device is not None:
        return torch.device("cuda", device) if isinstance(device, int) else torch.device(device)
    for v in inputs:
        if isinstance(v, torch.Tensor) and v.is_cuda:
            return v.device
    return torch.device("cuda")


def run(fd, inputs, alias_inputs, device, devices=()):
    session = current()
    session.execute_count += 1
    folder = os.path.join(session.workdir, f"exec{session.execute_count}")
    event = Event(status="ok", ops=sorted(fd._ops_used), dtypes=sorted(fd._dtypes_used), definition=fd.definition_text())
    session.events.append(event)
    text = fd.definition_text()
    try:
        try:
            key_inputs = _encode_key(inputs)
        except HarnessUnsupported:
            key_inputs = None
        memo_key = None if key_inputs is None else hashlib.blake2b((text + key_inputs).encode(), digest_size=16).hexdigest()
        memo = session.memo.get(memo_key) if memo_key is not None else None
        if memo is not None and (memo["verified"] or session.memo_mode == "trust"):
            outs = _restore(memo["outs"])
            event.memo = "hit"
            if memo["verified"]:
                session.note("repeated executes of one definition on the same inputs answered from the memo after a second tsfuser run gave bitwise-identical outputs")
            else:
                session.note("a repeated execute of identical text and inputs answered from the memo without a second run (--memo trust)")
        else:
            outs, _, event.wall_s = _run_tsfuser(fd, inputs, folder, session)
            if memo_key is not None:
                if memo is None:
                    session.memo[memo_key] = {"outs": _snapshot(outs), "verified": False}
                elif _same_bits(memo["outs"], outs):
                    memo["verified"] = True
                    event.memo = "verified"
                else:
                    session.note("a repeated execute of identical text and inputs gave different bits (not memoized)")
                    event.memo = "differs"
    except TsfuserError as e:
        event.status = "too-large" if e.too_large else "refused"
        event.message = str(e)
        raise
    except TooLarge as e:
        event.status = "too-large"
        event.message = str(e)
        raise
    except HarnessUnsupported as e:
        event.status = "unsupported"
        event.message = str(e)
        raise
    target = _target_device(inputs, device)
    result = []
    for k, out in enumerate(outs):
        alias = alias_inputs[k] if k < len(alias_inputs) else None
        own = devices[k] if k < len(devices) else None
        if own is not None and not current().local_cuda_as_cpu:
            out = out.to(own)
        elif target is not None:
            out = out.to(target)
        if alias is not None:
            with torch.no_grad():
                inputs[alias].copy_(out)
            continue
        result.append(out)
    return result


def _encode_key(inputs):
    parts = []
    for v in inputs:
        if isinstance(v, torch.Tensor):
            parts.append(_digest(v))
        elif isinstance(v, (bool, int, float, complex)):
            parts.append(repr(v) + type(v).__name__)
        else:
            raise HarnessUnsupported(f"an input of type {type(v).__name__}")
    return "|".join(parts)
