# Runs nvFuser's test cases through N harness workers (worker.py) with a per-case time limit and
# a total budget, and writes every case's result (JSON) and the summary (markdown, summary.py).
#
# Scheduling: cases go to whichever worker is free, longest-expected first where a previous
# results JSON (--order-from) says how long each took, else in collection order. A case past
# --per-test is killed with its worker's process group (tsfuser included) and is `timeout`; the
# worker is replaced. At --budget every running case is killed and it and every case not started
# are `not-run` ("budget spent").
# Invariant: every collected case appears exactly once in the results, with one class.

import argparse
import json
import os
import selectors
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from families import classify  # noqa: E402
from summary import write_summary  # noqa: E402


class Worker:
    def __init__(self, args, index, log_dir):
        self.index = index
        self.log = open(os.path.join(log_dir, f"worker{index}.log"), "ab")
        cmd = [args.python, os.path.join(HERE, "worker.py"), "--tests-root", args.tests_root, "--mode", args.mode, "--tsfuser", args.tsfuser,
               "--backend", args.backend, "--workdir", os.path.join(args.workdir, f"w{index}"), "--max-input-bytes", str(args.max_input_bytes)]
        cmd += ["--memo", args.memo]
        if args.keep_files:
            cmd.append("--keep-files")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, start_new_session=True)
        self.buf = b""
        self.ready = False
        self.case = None
        self.deadline = None
        self.started = None

    def send(self, case_id, per_test):
        self.case = case_id
        self.started = time.monotonic()
        self.deadline = self.started + per_test
        self.proc.stdin.write((json.dumps({"case": case_id}) + "\n").encode())
        self.proc.stdin.flush()

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        self.log.close()


def collect(args):
    cmd = [args.python, os.path.join(HERE, "worker.py"), "--tests-root", args.tests_root, "--mode", args.mode, "--collect"]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if out.returncode != 0:
        sys.exit("collection failed:\n" + out.stderr.decode(errors="replace")[-4000:])
    return json.loads(out.stdout.decode().strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description="run nvFuser's python tests on tsfuser through the stand-in frontend")
    ap.add_argument("--tests-root", required=True, help="prepared copy of nvFuser's tests/ (prepare.sh)")
    ap.add_argument("--mode", choices=["local", "gpu"], required=True)
    ap.add_argument("--tsfuser", required=True, help="command that runs the tsfuser CLI")
    ap.add_argument("--backend", choices=["gpu", "reference"], required=True)
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--budget", type=float, default=3600.0, help="total seconds")
    ap.add_argument("--per-test", type=float, default=60.0, help="seconds per case")
    ap.add_argument("--workdir", default="/tmp/nvf-harness")
    ap.add_argument("--out", required=True, help="folder for results.json, summary.md, worker logs")
    ap.add_argument("--filter", default="", help="comma-separated substrings of case ids")
    ap.add_argument("--order-from", default="", help="a previous results.json: longest cases first")
    ap.add_argument("--max-input-bytes", type=int, default=4 << 30)
    ap.add_argument("--keep-files", action="store_true")
    ap.add_argument("--memo", choices=["verify", "trust"], default="verify", help="repeats of identical text + inputs: rerun and compare bits, or answer at once")
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    args.tests_root = os.path.abspath(args.tests_root)
    os.makedirs(args.out, exist_ok=True)
    t0 = time.monotonic()

    cases = collect(args)
    if args.filter:
        subs = [s for s in args.filter.split(",") if s]
        cases = [c for c in cases if any(s in c["id"] for s in subs)]
    by_id = {c["id"]: c for c in cases}
    queue = [c["id"] for c in cases]
    if args.order_from and os.path.exists(args.order_from):
        prev = {r["id"]: r.get("wall_s", 0.0) for r in json.load(open(args.order_from))["cases"]}
        queue.sort(key=lambda i: -prev.get(i, 1e9))  # unknown cases first, then the longest
    results = {}
    for c in cases:
        if c["skip"] is not None:
            results[c["id"]] = {"id": c["id"], "class": "skipped", "reason": f"skipif: {c['skip']}", "wall_s": 0.0}
    queue = [i for i in queue if i not in results]
    print(f"{len(cases)} cases ({len(results)} skipped by marks), {args.parallel} workers, budget {args.budget:.0f} s, per case {args.per_test:.0f} s", flush=True)

    sel = selectors.DefaultSelector()
    workers = []
    next_index = [0]
    failed_starts = [0]

    def spawn():
        w = Worker(args, next_index[0], args.out)
        next_index[0] += 1
        sel.register(w.proc.stdout, selectors.EVENT_READ, w)
        workers.append(w)
        return w

    def retire(w):
        sel.unregister(w.proc.stdout)
        w.kill()
        workers.remove(w)

    def record(case_id, result):
        c = by_id[case_id]
        result.setdefault("reason", "")
        result["file"] = c["file"]
        result["set"] = classify(c["file"], c["tokens"], result.get("ops", ()), result.get("dtypes", ()))
        results[case_id] = result
        done = len(results)
        print(f"[{done}/{len(cases)} {time.monotonic() - t0:6.1f}s] {result['class']:<20} {case_id}  {result.get('wall_s', 0):.1f}s  {result['reason'][:160]}", flush=True)

    for _ in range(min(args.parallel, len(queue))):
        spawn()
    deadline = t0 + args.budget
    while (queue or any(w.case for w in workers)) and workers:
        now = time.monotonic()
        if now >= deadline:
            break
        for w in list(workers):
            if w.ready and w.case is None and queue:
                w.send(queue.pop(0), args.per_test)
        wait = min([deadline - now] + [w.deadline - now for w in workers if w.case is not None] + [1.0])
        for key, _ in sel.select(timeout=max(0.05, wait)):
            w = key.data
            chunk = os.read(w.proc.stdout.fileno(), 1 << 20)
            if not chunk:
                if w.case is not None:
                    record(w.case, {"id": w.case, "class": "error", "reason": f"worker exited ({w.proc.poll()}) while running the case",
                                    "wall_s": time.monotonic() - w.started})
                    w.case = None
                elif not w.ready:
                    print(f"worker {w.index} exited before it was ready; see {args.out}/worker{w.index}.log", flush=True)
                    failed_starts[0] += 1
                retire(w)
                if failed_starts[0] > 3:
                    sys.exit(f"workers do not start; see {args.out}/worker*.log")
                if queue:
                    spawn()
                continue
            w.buf += chunk
            while b"\n" in w.buf:
                line, w.buf = w.buf.split(b"\n", 1)
                msg = json.loads(line)
                if msg.get("ready"):
                    w.ready = True
                elif w.case is not None:
                    record(w.case, msg)
                    w.case = None
        now = time.monotonic()
        for w in list(workers):
            if w.case is not None and now >= w.deadline:
                record(w.case, {"id": w.case, "class": "timeout", "reason": f"case over {args.per_test:.0f} s", "wall_s": now - w.started})
                w.case = None
                retire(w)
                if queue:
                    spawn()
    for w in list(workers):
        if w.case is not None:
            record(w.case, {"id": w.case, "class": "not-run", "reason": "budget spent (was running)", "wall_s": time.monotonic() - w.started})
            w.case = None
        retire(w)
    for case_id in queue:
        if case_id not in results:
            results[case_id] = {"id": case_id, "class": "not-run", "reason": "budget spent", "wall_s": 0.0}
    for case_id, r in results.items():
        c = by_id[case_id]
        r.setdefault("file", c["file"])
        r.setdefault("set", classify(c["file"], c["tokens"], r.get("ops", ()), r.get("dtypes", ())))
    wall = time.monotonic() - t0
    ordered = [results[c["id"]] for c in cases]
    source = open(os.path.join(args.tests_root, "SOURCE")).read().strip() if os.path.exists(os.path.join(args.tests_root, "SOURCE")) else "unknown"
    meta = {"source": source, "backend": args.backend, "mode": args.mode, "parallel": args.parallel, "budget_s": args.budget,
            "per_test_s": args.per_test, "wall_s": round(wall, 1), "tsfuser": args.tsfuser}
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"meta": meta, "cases": ordered}, f, indent=1)
    text = write_summary(ordered, meta)
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(text)
    print(text.split("\n\n")[0] if "\n\n" in text else text, flush=True)
    print(f"\nwrote {args.out}/results.json and {args.out}/summary.md (wall {wall:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
