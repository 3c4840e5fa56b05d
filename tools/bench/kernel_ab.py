#!/usr/bin/env python3
"""A/B timing of tsfuser's generated kernels against torch.compile in ONE process and harness.

`tsfuser bench` times tsfuser in Node and PyTorch in Python; both use CUDA events around each
run with the L2 flushed first, but two harnesses can differ by a fraction of a microsecond
(stream setup, the flush kernel, how a copy is issued). For gaps of that size this script
removes the doubt: it loads kernels exported by `tsfuser-export-kernels` (CUDA source, launch
dimensions, parameter layout), compiles them with NVRTC and launches them through the driver
API on PyTorch's current stream, and times them interleaved with the torch.compile and eager
versions of the same workload and a same-size copy: every round runs every implementation once
in a shuffled order, each after the same L2 flush. Reports each median and, per
implementation, the median of its paired per-round difference to torch.compile.

Each exported kernel's output is first checked against PyTorch eager on a poisoned (NaN)
output buffer.

    python3 kernel_ab.py <export-dir> [--rounds 400] [--workloads a,b] [--flush read|reset-read]
                         [--input-sets N]

--flush reset-read first returns every persisting (evict_last) L2 line to normal priority
(cuCtxResetPersistingL2Cache), then reads the flush buffer, in case a plain read flush leaves
lines a kernel loaded with an L2 evict_last policy for the next run on the same inputs.
--input-sets N rotates through N copies of the inputs, so no run reads what the run before it
read (as a model's next call reads new data). On the H100 (2026-11-25) neither changed any
difference to torch.compile (tsfuser README, "Shape-op benchmarks").
"""

import argparse
import ctypes
import json
import os
import random
import statistics
import sys

import torch

DTYPES = {"Float": torch.float32, "BFloat16": torch.bfloat16, "Half": torch.float16}


def _load(names):
    for n in names:
        try:
            return ctypes.CDLL(n)
        except OSError:
            pass
    raise SystemExit(f"cannot load any of {names}")


cuda = _load(["libcuda.so.1", "libcuda.so"])
nvrtc = _load(["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"])


def check_cu(status, what):
    if status != 0:
        msg = ctypes.c_char_p()
        cuda.cuGetErrorString(status, ctypes.byref(msg))
        raise RuntimeError(f"{what}: CUDA error {status} ({msg.value.decode() if msg.value else '?'})")


def compile_cubin(source, name, arch):
    prog = ctypes.c_void_p()
    r = nvrtc.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None)
    if r != 0:
        raise RuntimeError(f"nvrtcCreateProgram {r}")
    opts = [f"--gpu-architecture={arch}", "--std=c++17", "-default-device"]
    arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    r = nvrtc.nvrtcCompileProgram(prog, len(opts), arr)
    if r != 0:
        size = ctypes.c_size_t()
        nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise RuntimeError(f"nvrtc failed for {name}:\n{log.value.decode()[:2000]}")
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetCUBINSize(prog, ctypes.byref(size))
    cubin = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetCUBIN(prog, cubin)
    nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
    return cubin


def divisor_magic(d):
    """PyTorch's IntDivider magic for 32-bit division by d (codegen divisor-magic.ts): with
    s = ceil(log2 d), m = floor(2^32 (2^s - d) / d) + 1, n / d = (umulhi(n, m) + n) >> s for
    0 <= n < 2^31; d < 1 (an empty extent) takes d = 1's pair."""
    d = max(1, int(d))
    shift = 0
    while (1 << shift) < d:
        shift += 1
    return ((1 << 32) * ((1 << shift) - d)) // d + 1, shift


class Kernel:
    """One exported kernel: module, function, launch dimensions, packed parameters."""

    def __init__(self, entry, directory, arch):
        self.entry = entry
        with open(os.path.join(directory, entry["file"])) as f:
            source = f.read()
        cubin = compile_cubin(source, entry["file"], arch)
        self.module = ctypes.c_void_p()
        check_cu(cuda.cuModuleLoadData(ctypes.byref(self.module), cubin), "cuModuleLoadData")
        self.func = ctypes.c_void_p()
        check_cu(cuda.cuModuleGetFunction(ctypes.byref(self.func), self.module, entry["kernel"].encode()),
                 "cuModuleGetFunction")
        regs = ctypes.c_int()
        cuda.cuFuncGetAttribute(ctypes.byref(regs), 4, self.func)  # CU_FUNC_ATTRIBUTE_NUM_REGS
        self.registers = regs.value
        static = ctypes.c_int()
        cuda.cuFuncGetAttribute(ctypes.byref(static), 1, self.func)  # CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
        # The 48 KiB default limit applies to static + dynamic shared memory together.
        if entry["smem"] + static.value > 48 * 1024:
            check_cu(cuda.cuFuncSetAttribute(self.func, 8, entry["smem"]), "cuFuncSetAttribute")
        self.bound = []

    def bind(self, inputs, outputs):
        """Packs the Tensor structs ({T* data; idx sizes[r]; idx strides[r]}) for these tensors
        (each call adds a binding: launch(i) runs on the i-th)."""
        width = 4 if self.entry["indexType"] == "Int32" else 8
        fmt = ctypes.c_int32 if width == 4 else ctypes.c_int64
        buffers = []
        for p in self.entry["params"]:
            t = (inputs if p["role"] == "input" else outputs)[p["position"]]
            if p["kind"] != "tensor":
                raise SystemExit(f"{self.entry['file']}: scalar parameters are not supported here")
            if t.dim() != p["rank"]:
                raise SystemExit(f"{self.entry['file']}: parameter rank {p['rank']} vs tensor rank {t.dim()}")
            buf = ctypes.create_string_buffer(p["size"])
            ctypes.c_uint64.from_buffer(buf, 0).value = t.data_ptr()
            for d in range(p["rank"]):
                fmt.from_buffer(buf, 8 + d * width).value = t.size(d)
                fmt.from_buffer(buf, 8 + (p["rank"] + d) * width).value = t.stride(d)
            buffers.append(buf)
        divisors = self.entry.get("divisors")
        if divisors is not None:
            # codegen's fast division: NvfDivisorMagic<N>, (magic, shift) per divisor of a tensor's size.
            buf = ctypes.create_string_buffer(divisors["size"])
            for k, src in enumerate(divisors["sources"]):
                p = self.entry["params"][src["param"]]
                t = (inputs if p["role"] == "input" else outputs)[p["position"]]
                magic, shift = divisor_magic(t.size(src["dim"]))
                ctypes.c_uint32.from_buffer(buf, 8 * k).value = magic
                ctypes.c_uint32.from_buffer(buf, 8 * k + 4).value = shift
            buffers.append(buf)
        # The buffers stay referenced beside the pointer array that points into them.
        self.bound.append((buffers, (ctypes.c_void_p * len(buffers))(*[ctypes.addressof(b) for b in buffers])))

    def launch(self, binding=0):
        g, b = self.entry["grid"], self.entry["block"]
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        check_cu(cuda.cuLaunchKernel(self.func, g[0], g[1], g[2], b[0], b[1], b[2], self.entry["smem"], stream,
                                     self.bound[binding][1], None), "cuLaunchKernel")


def torch_workload(name, device="cuda"):
    """The same functions as pytorch_bench.py (inputs made from the exported sizes; a workload
    exported as `name@sizes` at other sizes uses `name`'s function)."""
    name = name.split("@")[0]
    f = torch.nn.functional
    if name.startswith("layer_norm_") and not name.startswith("layer_norm_bwd"):
        return lambda x, w, b: f.layer_norm(x, (x.shape[-1],), w, b, 1e-5)
    if name.startswith("softmax_"):
        return lambda x: torch.softmax(x, dim=-1)
    if name == "rms_norm_bf16":
        def fn(x, w):
            xf = x.float()
            return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).to(torch.bfloat16)
        return fn
    # Any other workload: pytorch_bench.py's function (its own inputs are dropped; the harness
    # makes them from the exported sizes).
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pytorch_bench import WORKLOADS
    if name in WORKLOADS:
        fn, _, _ = WORKLOADS[name]()
        torch.cuda.empty_cache()
        return fn
    raise SystemExit(f"no PyTorch version of {name}")


def agree(a, b, dtype):
    a, b = a.float(), b.float()
    if torch.isnan(a).any():
        return False, "NaN in output (unwritten elements?)"
    tol = 1e-4 if dtype == torch.float32 else 2e-2
    err = ((a - b).abs() / (1 + b.abs())).max().item()
    return err <= tol, f"max rel err {err:.2e}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("directory")
    ap.add_argument("--rounds", type=int, default=400)
    ap.add_argument("--workloads", default=None)
    ap.add_argument("--mode", choices=["interleaved", "blocked"], default="interleaved",
                    help="blocked: all rounds of one implementation back to back (as tsfuser bench and "
                         "pytorch_bench.py time), implementations in turn")
    ap.add_argument("--flush", choices=["read", "reset-read"], default="read",
                    help="reset-read: persisting (evict_last) L2 lines back to normal before the read flush")
    ap.add_argument("--input-sets", type=int, default=1,
                    help="rotate through this many copies of the inputs (no run re-reads the last run's inputs)")
    ap.add_argument("--reverse", action="store_true",
                    help="blocked mode: time the implementations in reverse order (to expose drift)")
    a = ap.parse_args()
    with open(os.path.join(a.directory, "manifest.json")) as f:
        manifest = json.load(f)
    torch.cuda.init()
    torch.zeros(1, device="cuda")
    major, minor = torch.cuda.get_device_capability()
    arch = f"sm_{major}{minor}"
    flush = torch.zeros(512 * 1024 * 1024 // 4, dtype=torch.float32, device="cuda")
    rng = random.Random(1)
    torch.manual_seed(1)
    names = []
    for e in manifest:
        if e["workload"] not in names and (a.workloads is None or e["workload"] in a.workloads.split(",")):
            names.append(e["workload"])
    table = []
    for name in names:
        entries = [e for e in manifest if e["workload"] == name]
        spec = entries[0]["inputs"]
        # Inputs marked positive (variances) in [0.5, 1.5), as pytorch_bench.py makes them.
        def make(s):
            if s.get("positive"):
                return torch.rand(*s["sizes"], device="cuda", dtype=DTYPES[s["dtype"]]) + 0.5
            return torch.randn(*s["sizes"], device="cuda", dtype=DTYPES[s["dtype"]])
        sets = [[make(s) for s in spec] for _ in range(a.input_sets)]
        inputs = sets[0]
        fn = torch_workload(name)
        reference = fn(*inputs)
        impls = {"eager": lambda i: fn(*sets[i])}
        compiled = torch.compile(fn)
        impls["torch.compile"] = lambda i: compiled(*sets[i])
        dst = torch.empty_like(inputs[0])
        impls["copy_ (same bytes)"] = lambda i: dst.copy_(sets[i][0])
        notes = {}
        for e in entries:
            label = f"tsfuser {e['variant']}"
            out = torch.full_like(reference, float("nan"))
            try:
                k = Kernel(e, a.directory, arch)
                for inp in sets:
                    k.bind(inp, [out])
                k.launch()
            except RuntimeError as err:
                print(f"{name} {label}: NOT RUN ({err})", file=sys.stderr)
                continue
            torch.cuda.synchronize()
            ok, why = agree(out, reference, reference.dtype)
            notes[label] = f"{k.registers} regs, {why}"
            if not ok:
                print(f"{name} {label}: WRONG OUTPUT ({why})", file=sys.stderr)
                continue
            impls[label] = k.launch
        for f_ in impls.values():
            for i in range(3):
                f_(i % a.input_sets)
        torch.cuda.synchronize()
        times = {k: [] for k in impls}
        calls = {k: 0 for k in impls}

        def timed(label):
            if a.flush == "reset-read":
                check_cu(cuda.cuCtxResetPersistingL2Cache(), "cuCtxResetPersistingL2Cache")
            flush.sum()
            s = torch.cuda.Event(enable_timing=True)
            t = torch.cuda.Event(enable_timing=True)
            s.record()
            impls[label](calls[label] % a.input_sets)
            calls[label] += 1
            t.record()
            t.synchronize()
            times[label].append(s.elapsed_time(t) * 1000)

        order = list(impls)
        if a.mode == "interleaved":
            for _ in range(a.rounds):
                rng.shuffle(order)
                for label in order:
                    timed(label)
        else:
            for label in (reversed(order) if a.reverse else order):
                for _ in range(a.rounds):
                    timed(label)
        base = times["torch.compile"]
        for label, ts in times.items():
            if a.mode == "interleaved":
                diffs = [x - y for x, y in zip(ts, base)]
                boots = sorted(statistics.median(rng.choices(diffs, k=len(diffs))) for _ in range(200))
            else:
                # Unpaired: the bootstrap distribution of the difference of the two medians.
                diffs = [statistics.median(ts) - statistics.median(base)]
                boots = sorted(statistics.median(rng.choices(ts, k=len(ts))) - statistics.median(rng.choices(base, k=len(base)))
                               for _ in range(200))
            table.append((name, label, statistics.median(ts), statistics.median(diffs), boots[5], boots[194],
                          notes.get(label, "")))
        del inputs, sets, reference, dst
        torch.cuda.empty_cache()
    what = ("median of per-round (impl - torch.compile)" if a.mode == "interleaved"
            else "median(impl) - median(torch.compile)")
    print(f"\n{a.rounds} rounds, {a.mode}, {a.flush} flush, {a.input_sets} input set(s); diff = {what}, 95% bootstrap CI")
    print("| workload | impl | median µs | diff µs | CI | notes |")
    print("|---|---|---:|---:|---|---|")
    for name, label, med, d, lo, hi, note in table:
        print(f"| {name} | {label} | {med:.1f} | {d:+.2f} | [{lo:+.2f}, {hi:+.2f}] | {note} |")


if __name__ == "__main__":
    main()
