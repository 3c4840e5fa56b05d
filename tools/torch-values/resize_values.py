# Generates test-fixtures/torch-values/resize.json: torch's slice (python slicing with steps,
# negative and out-of-range bounds), F.pad (positive widths, negative = crop, a value) and
# torch.cat, on inputs x = arange(numel) * 0.5 - 3 (float32) reshaped. Run with PyTorch installed:
#   python3 tools/torch-values/resize_values.py
import json
import os

import torch
import torch.nn.functional as F


def inp(shape):
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=torch.float32) * 0.5 - 3).reshape(shape)


def flat(t):
    return [float(v) for v in t.contiguous().reshape(-1).tolist()]


slices = [
    ([7, 9], [0, 2], [7, 9], [1, 1]),
    ([7, 9], [1, -4], [-1, 100], [2, 3]),
    ([7, 9], [-100, 5], [3, 2], [1, 1]),
    ([7, 9], [-3, -9], [100, -2], [4, 2]),
    ([4, 5, 6], [1, 0, 3], [3, 5, 6], [1, 2, 1]),
    ([10], [12], [20], [1]),
]
pads = [
    ([5, 6], [2, 1], 0.0),
    ([5, 6], [2, -1, 1, 3], 7.0),
    ([5, 6], [-2, -3], -1.5),
    ([3, 4, 5], [0, 0, -1, 2, 3, 0], 2.0),
]
cats = [
    ([[3, 4], [2, 4], [5, 4]], 0),
    ([[3, 4], [3, 1], [3, 7]], 1),
    ([[2, 3, 4], [2, 5, 4]], 1),
    ([[2, 3, 4], [2, 3, 2], [2, 3, 6], [2, 3, 1]], 2),
]

out = {"generator": f"torch {torch.__version__}: x = arange(numel) * 0.5 - 3 (float32) reshaped; x[start:stop:step, ...], F.pad(x, widths, value=v), torch.cat(xs, dim) with xs[k] = x(shape_k) + 100 * k", "slice": [], "pad": [], "cat": []}
for shape, starts, stops, steps in slices:
    x = inp(shape)
    y = x[tuple(slice(a, b, c) for a, b, c in zip(starts, stops, steps))]
    out["slice"].append({"shape": shape, "starts": starts, "stops": stops, "steps": steps, "sizes": list(y.shape), "expected": flat(y)})
for shape, widths, value in pads:
    y = F.pad(inp(shape), widths, value=value)
    out["pad"].append({"shape": shape, "widths": widths, "value": value, "sizes": list(y.shape), "expected": flat(y)})
for shapes, dim in cats:
    y = torch.cat([inp(s) + 100 * k for k, s in enumerate(shapes)], dim)
    out["cat"].append({"shapes": shapes, "dim": dim, "sizes": list(y.shape), "expected": flat(y)})

path = os.path.join(os.path.dirname(__file__), "..", "..", "test-fixtures", "torch-values", "resize.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
print(f"wrote {os.path.normpath(path)}")
