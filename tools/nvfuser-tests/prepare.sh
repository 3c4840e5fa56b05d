#!/usr/bin/env bash
# Copies the nvFuser test files the harness runs (tests/python/direct and what they import) from
# an NVIDIA/Fuser checkout or bare git directory into DEST, as DEST/python/..., and records the
# commit in DEST/SOURCE. Nothing of nvFuser's is committed to this repository: DEST is a scratch
# or git-ignored folder (gpu-bundle/nvfuser-tests for the GPU host).
#   bash tools/nvfuser-tests/prepare.sh /work/.mirror/NVIDIA+Fuser/repo gpu-bundle/nvfuser-tests
set -euo pipefail
SRC=${1:?usage: prepare.sh <Fuser checkout or git dir> <dest> [commit]}
DEST=${2:?usage: prepare.sh <Fuser checkout or git dir> <dest> [commit]}
REV=${3:-HEAD}
FILES=(
  tests/python/__init__.py
  tests/python/direct/conftest.py
  tests/python/direct/test_python_frontend.py
  tests/python/direct/test_repro.py
  tests/python/direct/test_sdpa.py
  tests/python/direct/test_matmul.py
  tests/python/direct/test_high_complexity.py
  tests/python/direct/test_narrow_precision.py
  tests/python/direct/test_alphafold3.py
  tests/python/direct/test_allocation.py
  tests/python/direct_utils/__init__.py
  tests/python/direct_utils/utils.py
  tests/python/direct_utils/narrow_precision.py
)
if [ -d "$SRC/tests/python/direct" ]; then
  get() { cat "$SRC/$1"; }
  commit=$(git -C "$SRC" rev-parse HEAD 2>/dev/null || echo unknown)
else
  get() { git --git-dir="$SRC" show "$REV:$1"; }
  commit=$(git --git-dir="$SRC" rev-parse "$REV")
fi
rm -rf "$DEST"
for f in "${FILES[@]}"; do
  out="$DEST/${f#tests/}"
  mkdir -p "$(dirname "$out")"
  get "$f" > "$out"
done
echo "NVIDIA/Fuser $commit" > "$DEST/SOURCE"
# ORDER_FROM=<an earlier results.json>: gpu_run.sh then starts the longest cases first.
if [[ -n "${ORDER_FROM:-}" ]]; then cp "$ORDER_FROM" "$DEST/order.json"; fi
echo "prepared $(( ${#FILES[@]} )) files of NVIDIA/Fuser $commit in $DEST ($(du -sh "$DEST" | cut -f1))"
