# The markdown summary of a harness run: a table per set (core, op-family, all) and per file,
# then each class's cases grouped by reason, then the passes that carry notes (assertions the
# harness could not check as nvFuser does).
#
# pass % = (pass + pass-expected-error) / (the classes that ran: pass ... error).
# Invariant: every case of the results is counted once in its set's row, in its file's row and in
# "all"; every non-pass case appears under its class.

import re
from collections import OrderedDict

COLUMNS = ["skipped", "not-run", "no-execute", "xfail", "too-large", "pass", "pass-expected-error", "mismatch", "refused", "timeout",
           "harness-unsupported", "error"]
RAN = ["pass", "pass-expected-error", "mismatch", "refused", "timeout", "harness-unsupported", "error"]


def _row(label, cases):
    counts = {c: 0 for c in COLUMNS}
    for r in cases:
        counts[r["class"]] = counts.get(r["class"], 0) + 1
    ran = sum(counts[c] for c in RAN)
    good = counts["pass"] + counts["pass-expected-error"]
    pct = f"{100.0 * good / ran:.1f}" if ran else "-"
    return "| " + " | ".join([label, str(len(cases))] + [str(counts[c]) for c in COLUMNS] + [pct]) + " |"


def _normalize(reason):
    text = re.sub(r"\b[TSV]\d+\b", "T#", reason)
    text = re.sub(r"\d+(\.\d+)?", "N", text)
    return text[:220]


def write_summary(cases, meta):
    lines = ["| set | tests | " + " | ".join(COLUMNS) + " | pass % |", "|" + "---|" * (len(COLUMNS) + 3)]
    for s in ("core", "op-family"):
        lines.append(_row(s, [r for r in cases if r["set"] == s]))
    lines.append(_row("all", cases))
    for f in sorted({r["file"] for r in cases}):
        lines.append(_row(f"file {f}", [r for r in cases if r["file"] == f]))
    out = "\n".join(lines) + "\n\n"
    out += (f"pass % = (pass + pass-expected-error) / (the RUN classes: pass … error). Wall {meta['wall_s']} s. Backend {meta['backend']} "
            f"({meta['mode']} mode), {meta['parallel']} in parallel, {meta['per_test_s']:.0f} s a case, budget {meta['budget_s']:.0f} s. "
            f"Tests: {meta['source']}.\n")
    for cls in ["mismatch", "refused", "error", "timeout", "harness-unsupported", "too-large", "pass-expected-error", "no-execute", "xfail",
                "skipped", "not-run"]:
        group = [r for r in cases if r["class"] == cls]
        if not group:
            continue
        out += f"\n## {cls} ({len(group)})\n"
        by = OrderedDict()
        for r in group:
            by.setdefault(_normalize(r.get("reason", "")), []).append(r)
        for _, rs in sorted(by.items(), key=lambda kv: -len(kv[1])):
            ids = [f"{r['id']}" + (f" ({r['set']})" if cls in ("mismatch", "refused", "error") else "") for r in rs]
            shown = ", ".join(ids[:6]) + (f", … (+{len(ids) - 6})" if len(ids) > 6 else "")
            out += f"- [{len(rs)}] {rs[0].get('reason', '')[:300]}\n    {shown}\n"
    notes = OrderedDict()
    for r in cases:
        if r["class"] in ("pass", "pass-expected-error"):
            for n in r.get("notes", []):
                notes.setdefault(n, []).append(r["id"])
    if notes:
        out += f"\n## passes with assertions not checked by the harness ({sum(len(v) for v in notes.values())})\n"
        for n, ids in notes.items():
            shown = ", ".join(ids[:6]) + (f", … (+{len(ids) - 6})" if len(ids) > 6 else "")
            out += f"- [{len(ids)}] {n}\n    {shown}\n"
    return out
