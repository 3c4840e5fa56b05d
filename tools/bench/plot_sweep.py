#!/usr/bin/env python3
"""Plots `tsfuser bench --suite sweep --json` reports (bytes per family as sweep-points.ts pointBytes): for each family and dtype, tsfuser and
torch.compile bandwidth (GB/s of the minimal traffic) against the number of bytes moved, one
line per row count, and the speedup torch.compile time / tsfuser time. Writes one PNG per family
and dtype. Several JSON files (chunks of one sweep) are merged.

Usage: python3 plot_sweep.py report1.json [report2.json …] --out DIR   (needs matplotlib)
"""
import argparse
import json
import os
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ELT = {"Float": 4, "BFloat16": 2}


def point_bytes(p):
    e, n = ELT[p["dtype"]], p["rows"] * p["hidden"]
    h, r = p["hidden"], p["rows"]
    return {"softmax": 2 * n * e, "layer_norm": (2 * n + 2 * h) * e, "rms_norm": (2 * n + h) * e,
            "row_sum": n * e + r * e, "layer_norm_bwd": 3 * n * e + 2 * r * 4 + 3 * h * e,
            "gelu": 2 * n * e, "silu_mul": 3 * n * e, "mul": 3 * n * e, "bias_add": (2 * n + h) * e}[p["family"]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--out", default=".")
    a = ap.parse_args()
    times = defaultdict(dict)  # (family, dtype) -> {(rows, hidden, impl): ms}
    meta = []
    copy = None
    for path in a.reports:
        r = json.load(open(path))
        copy = r["copyGbps"]
        meta.append(f'{r["device"]}, {r["date"]}, {r["commit"]}')
        for m in r["measurements"]:
            p = m["point"]
            times[(p["family"], p["dtype"])][(p["rows"], p["hidden"], m["impl"])] = (m["medianMs"], point_bytes(p))
    os.makedirs(a.out, exist_ok=True)
    for (family, dtype), t in sorted(times.items()):
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
        for rows in sorted({k[0] for k in t}):
            for impl, style in (("tsfuser", "-o"), ("torch.compile", "--s")):
                pts = sorted((k[1], v) for k, v in t.items() if k[0] == rows and k[2] == impl)
                if pts:
                    ax1.plot([h for h, _ in pts], [b / (ms * 1e-3) / 1e9 for _, (ms, b) in pts], style, label=f"{impl}, {rows} rows")
            ratio = sorted((k[1], t[(rows, k[1], "torch.compile")][0] / v[0]) for k, v in t.items()
                           if k[0] == rows and k[2] == "tsfuser" and (rows, k[1], "torch.compile") in t)
            if ratio:
                ax2.plot([h for h, _ in ratio], [s for _, s in ratio], "-o", label=f"{rows} rows")
        if copy:
            ax1.axhline(copy, color="gray", lw=0.8, ls=":", label="copy floor")
        ax1.set_xscale("log", base=2)
        ax1.set_xlabel("hidden")
        ax1.set_ylabel("GB/s (minimal traffic)")
        ax1.legend(fontsize=7)
        ax2.axhline(1.0, color="gray", lw=0.8)
        ax2.axhline(0.9, color="red", lw=0.6, ls=":")
        ax2.set_xscale("log", base=2)
        ax2.set_yscale("log")
        ax2.set_xlabel("hidden")
        ax2.set_ylabel("torch.compile time / tsfuser time")
        ax2.legend(fontsize=7)
        fig.suptitle(f"{family} {dtype} — {'; '.join(sorted(set(meta)))}", fontsize=9)
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, f"sweep_{family}_{dtype}.png"), dpi=110)
        plt.close(fig)


if __name__ == "__main__":
    main()
