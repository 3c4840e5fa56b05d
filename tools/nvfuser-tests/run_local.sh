#!/usr/bin/env bash
# Runs nvFuser's python tests on this machine (no GPU): PyTorch on the CPU ('cuda' mapped to the
# CPU, torch.cuda answering as an H200), tsfuser's reference backend through the built CLI.
#   bash tools/nvfuser-tests/run_local.sh <prepared tests dir> [out dir] [extra runner args…]
# e.g. bash tools/nvfuser-tests/prepare.sh /work/.mirror/NVIDIA+Fuser/repo /tmp/nvft
#      bash tools/nvfuser-tests/run_local.sh /tmp/nvft /tmp/nvft-out --parallel 2 --filter test_basic
# Needs `pnpm build` (packages/tsfuser/dist/cli.js) and a Python with torch + numpy
# (PYTHON, default /work/torchvenv/bin/python, else python3).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tests=${1:?usage: run_local.sh <prepared tests dir> [out dir] [runner args…]}
out=${2:-/tmp/nvf-tests-local}
shift $(( $# >= 2 ? 2 : 1 ))
py=${PYTHON:-/work/torchvenv/bin/python}
[[ -x "$py" ]] || py=python3
cli="$root/packages/tsfuser/dist/cli.js"
[[ -f "$cli" ]] || { echo "run_local.sh: $cli missing: run pnpm build first" >&2; exit 2; }
exec "$py" "$root/tools/nvfuser-tests/harness/runner.py" --tests-root "$tests" --mode local \
  --tsfuser "node $cli" --backend reference --parallel 2 --per-test 240 --budget 7200 \
  --workdir "${NVF_WORKDIR:-/tmp/nvf-harness-local}" --out "$out" "$@"
