#!/usr/bin/env bash
# Session 9, call 2: the GPU differential suite (20 random cases, seed 9) on this session's tree,
# then the warp-specialized forward f34 alone (call 1: nothing printed in 90 s after f31).
set -o pipefail
cd "$(dirname "$0")/../../.."
timeout -s KILL 135 bash gpu-bundle/run.sh tsfuser-gpu-suite --random 20 --seed 9 > "$OUT/suite.log" 2>&1
echo "suite rc $?"
start=$SECONDS
timeout -s KILL 40 bash gpu-bundle/run.sh codegen-attention --no-cases --no-defaults --tilings f34 --tuning-seqs 4096 > "$OUT/ws.log" 2>&1
echo "ws rc $? after $((SECONDS - start)) s"
echo "=== suite"; grep -E "FAIL|failed|unsupported" "$OUT/suite.log" | tail -12; tail -2 "$OUT/suite.log"
echo "=== ws"; tail -6 "$OUT/ws.log" | cut -c1-300
