# One harness worker: imports torch, the stand-in nvfuser_direct and nvFuser's test modules once,
# then runs the cases the runner sends (one JSON line each on stdin) and answers one JSON line
# per case on its protocol pipe (the original stdout; the test's own prints go to stderr/log).
# `--collect` prints the case list and exits.
#
# Classes (README): pass, pass-expected-error, mismatch, refused, too-large, harness-unsupported,
# error, skipped, xfail, no-execute; timeout / not-run are decided by the runner.
# Invariant: a case's class comes from the exception that left the test function (or none) and
# the events its fd.execute calls recorded; nothing else.

import argparse
import gc
import json
import os
import shlex
import shutil
import sys
import time
import traceback
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def setup_path(tests_root):
    # The pytest shim and the stand-in first; nvFuser's tests root (for `python.direct_utils`);
    # the fallbacks (expecttest, looseversion) last, used only where not installed.
    sys.path[:0] = [os.path.join(HERE, "shim"), os.path.join(HERE, "stubs"), HERE, tests_root]
    sys.path.append(os.path.join(HERE, "fallback"))


def _short(text, n=400):
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _where(tb_exc):
    frames = traceback.extract_tb(tb_exc.__traceback__)
    for f in reversed(frames):
        if "/python/direct" in f.filename:
            return f"{os.path.basename(f.filename)}:{f.lineno}"
    return f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""


def _failing_line(exc):
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/python/direct" in f.filename]
    return frames[-1].line or "" if frames else ""


def run_case(collection, case_id, args, _session):
    import torch
    import pytest  # the shim

    func, params, case = collection.by_id[case_id]
    slug = "".join(c if c.isalnum() or c in "._-" else "_" for c in case_id)[:150]
    workdir = os.path.join(args.workdir, slug)
    shutil.rmtree(workdir, ignore_errors=True)
    session = _session.CaseSession(
        tsfuser=shlex.split(args.tsfuser),
        backend=args.backend,
        workdir=workdir,
        local_cuda_as_cpu=args.mode == "local",
        max_input_bytes=args.max_input_bytes,
        memo_mode=args.memo,
    )
    _session.install(session)
    seed = zlib.crc32(case_id.encode()) & 0x7FFFFFFF
    torch.manual_seed(seed)
    result = {"id": case_id, "seed": seed}
    start = time.monotonic()
    cls, reason = None, ""
    if case["skip"] is not None:
        cls, reason = "skipped", f"skipif: {case['skip']}"
    else:
        kwargs = {}
        import inspect

        for name in inspect.signature(func).parameters:
            if name == "nvfuser_direct_test":
                kwargs[name] = collection.conftest.NVFuserTest()
            elif name in params:
                kwargs[name] = params[name]
            else:
                cls, reason = "error", f"fixture '{name}' is not provided by the harness"
        if cls is None:
            try:
                func(**kwargs)
            except pytest.Skipped as e:
                cls, reason = "skipped", f"pytest.skip: {_short(e)}"
            except pytest.XFailed as e:
                cls, reason = "xfail", _short(e)
            except _session.HarnessUnsupported as e:
                cls, reason = "harness-unsupported", _short(e)
            except _session.TooLarge as e:
                cls, reason = "too-large", _short(e)
            except _session.TsfuserError as e:
                cls, reason = ("too-large" if e.too_large else "refused"), "tsfuser: " + _short(str(e).removeprefix("tsfuser: "))
            except AssertionError as e:
                ran = any(ev.status == "ok" for ev in session.events)
                cls = "mismatch" if ran else "error"
                reason = f"{_where(e)}: AssertionError: {_short(e, 300)}"
                line = _failing_line(e)
                if "Torch not compiled with CUDA" in str(e):
                    cls, reason = "error", f"local mode: a torch.cuda call the CPU mapping lacks at {_where(e)}"
                elif "str(fd" in line or "repr(fd" in line:
                    cls, reason = "harness-unsupported", f"compares nvFuser's printed definitions (its printer, not run here) at {_where(e)}"
                elif "data_ptr" in line:
                    # nvFuser returns the input tensor itself for an output aliasing it; tsfuser's
                    # CLI returns values only, so storage identity cannot be compared.
                    cls, reason = "harness-unsupported", f"asserts memory aliasing of outputs (data_ptr) at {_where(e)}"
            except Exception as e:  # noqa: BLE001 - every other exception is the case's verdict
                oom = type(e).__name__ == "OutOfMemoryError"
                cls = "error"
                reason = f"{_where(e)}: {type(e).__name__}: {_short(e, 300)}" + (" (out of memory)" if oom else "")
            else:
                if not session.events:
                    cls, reason = "no-execute", "the test ran no fd.execute"
                elif any(ev.status != "ok" for ev in session.events):
                    cls = "pass-expected-error"
                    reason = next("tsfuser: " + _short(ev.message.removeprefix("tsfuser: ")) for ev in session.events if ev.status != "ok")
                else:
                    cls = "pass"
    result.update(
        {
            "class": cls,
            "reason": reason,
            "wall_s": round(time.monotonic() - start, 3),
            "notes": session.notes,
            "executes": [
                {"status": ev.status, "message": _short(ev.message), "wall_s": round(ev.wall_s, 3), "memo": ev.memo}
                for ev in session.events
            ],
            "ops": sorted({op for ev in session.events for op in ev.ops}),
            "dtypes": sorted({d for ev in session.events for d in ev.dtypes}),
        }
    )
    failing = [ev for ev in session.events if ev.status != "ok"]
    if cls not in ("pass", "skipped") and (failing or session.events):
        result["definition"] = (failing or session.events)[-1].definition
    # Keep def.py and tsfuser.log of cases that did not pass; the .npy files never.
    if os.path.isdir(workdir):
        if cls == "pass" and not args.keep_files:
            shutil.rmtree(workdir, ignore_errors=True)
        elif not args.keep_files:
            for root, _, files in os.walk(workdir):
                for f in files:
                    if f.endswith(".npy"):
                        os.remove(os.path.join(root, f))
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tests-root", required=True)
    ap.add_argument("--mode", choices=["local", "gpu"], required=True)
    ap.add_argument("--tsfuser", default="node packages/tsfuser/dist/cli.js")
    ap.add_argument("--backend", default="reference")
    ap.add_argument("--workdir", default="/tmp/nvf-harness")
    ap.add_argument("--max-input-bytes", type=int, default=4 << 30)
    ap.add_argument("--keep-files", action="store_true")
    ap.add_argument("--collect", action="store_true")
    ap.add_argument("--memo", choices=["verify", "trust"], default="verify")
    args = ap.parse_args()

    # The protocol keeps the real stdout; anything the tests print goes to stderr.
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    setup_path(os.path.abspath(args.tests_root))
    if args.mode == "local":
        import cuda_as_cpu

        cuda_as_cpu.install()
    from nvfuser_direct import _session
    from collect import Collection

    collection = Collection(os.path.abspath(args.tests_root))
    if args.collect:
        proto.write(json.dumps(collection.cases) + "\n")
        return
    proto.write(json.dumps({"ready": True, "cases": len(collection.cases)}) + "\n")
    for line in sys.stdin:
        req = json.loads(line)
        case_id = req["case"]
        print(f"=== {case_id}", file=sys.stderr, flush=True)
        try:
            result = run_case(collection, case_id, args, _session)
        except BaseException as e:  # noqa: BLE001 - a harness failure is reported, not fatal
            result = {"id": case_id, "class": "error", "reason": f"harness: {type(e).__name__}: {_short(e)}"}
        proto.write(json.dumps(result) + "\n")
        gc.collect()
        if args.mode == "gpu":
            import torch

            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
