#!/usr/bin/env bash
# Runs nvFuser's python tests on the GPU host against PyTorch on the GPU, tsfuser's GPU backend
# through the bundle (`bash gpu-bundle/run.sh tsfuser`), from the repository root:
#   bash tools/nvfuser-tests/gpu_run.sh <budget_s> <parallel> [extra runner args…]
# Before (on the development machine):
#   node tools/gpu-bundle.mjs tsfuser            # or pnpm gpu:bundle tsfuser
#   bash tools/nvfuser-tests/prepare.sh /work/.mirror/NVIDIA+Fuser/repo gpu-bundle/nvfuser-tests
# and carry gpu-bundle (prepare after bundling: gpu-bundle.mjs empties the folder). Results, few
# files (the output's file count is limited): $OUT/nvf-tests/summary.md, results.json, and
# details.tar.gz (worker logs; def.py + tsfuser.log of each case that did not pass).
set -uo pipefail
budget=${1:-300}
parallel=${2:-12}
shift $(( $# >= 2 ? 2 : $# ))
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${OUT:-/tmp/nvf-out}/nvf-tests"
tests="$root/gpu-bundle/nvfuser-tests"
py=${PYTHON:-python3}
# Not /dev/shm: tsfuser refuses --save-outputs under /dev (call 2, 2026-12-03).
work=${NVF_WORKDIR:-/tmp/nvf-harness}
order=()
[[ -f "$tests/order.json" ]] && order=(--order-from "$tests/order.json")
[[ -d "$tests/python/direct" ]] || { echo "gpu_run.sh: $tests missing: run prepare.sh into gpu-bundle/nvfuser-tests" >&2; exit 2; }
[[ -f "$root/gpu-bundle/tsfuser.mjs" ]] || { echo "gpu_run.sh: gpu-bundle/tsfuser.mjs missing: bundle the tsfuser entry" >&2; exit 2; }
mkdir -p "$out"
rm -rf "$work"
mkdir -p "$work/report"
# Unpack node once before the workers start tsfuser in parallel.
bash "$root/gpu-bundle/run.sh" tsfuser --help > /dev/null 2>&1 || true
"$py" -c "import torch, numpy; print('python', torch.__version__, 'cuda', torch.cuda.is_available(), torch.cuda.get_device_name(0))"
"$py" "$root/tools/nvfuser-tests/harness/runner.py" --tests-root "$tests" --mode gpu \
  --tsfuser "bash $root/gpu-bundle/run.sh tsfuser" --backend gpu --parallel "$parallel" --per-test 60 \
  --budget "$budget" --workdir "$work/cases" --out "$work/report" "${order[@]}" "$@"
rc=$?
cp "$work/report/summary.md" "$work/report/results.json" "$out/" 2>/dev/null
(cd "$work" && find report cases \( -name '*.log' -o -name 'def.py' \) -print0 | tar --null -czf "$out/details.tar.gz" -T - ) 2>/dev/null || true
exit $rc
