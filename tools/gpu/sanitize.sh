#!/usr/bin/env bash
# Runs GPU programs of the bundle under compute-sanitizer (memcheck, racecheck, synccheck) on the
# GPU host and prints a table of error counts; exits non-zero when any tool reports an error.
#
#   bash tools/gpu/sanitize.sh [tools] [-- entry args …]
#
# tools: comma-separated (default memcheck,racecheck,synccheck). Without an entry it runs the
# default set below, sized so that each program stays within a few minutes under the slowest
# tool (racecheck instruments every shared-memory access). Logs go to $OUT/sanitize-<tool>-<n>.log
# when $OUT is set. The toolkit is looked up in /usr/local/cuda*/bin. Driver API errors are not
# reported (--report-api-errors no): runtime-smoke provokes them on purpose (its error-path checks)
# and the addon enumerates a kernel's parameters until cuFuncGetParamInfo answers INVALID_VALUE;
# what counts is what the tools find in kernels (memory, races, barriers).
set -uo pipefail
cd "$(dirname "$0")/../.."
tools="${1:-memcheck,racecheck,synccheck}"
shift || true
[ "${1:-}" = "--" ] && shift
sanitizer="$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)"
if [ -z "$sanitizer" ] || [ ! -x "$sanitizer" ]; then echo "compute-sanitizer not found"; echo "0 passed, 1 failed"; exit 1; fi
out="${OUT:-/tmp}"
if [ "$#" -gt 0 ]; then
  programs=("$*")
else
  programs=(
    "runtime-smoke"
    "tsfuser-gpu-suite --random 8 --seed 7"
    "tsfuser-concurrency-stress --iterations 3 --seed 7"
    "codegen-reduction-suite 7 8"
  )
fi
table=()
bad=0
n=0
for tool in ${tools//,/ }; do
  for program in "${programs[@]}"; do
    n=$((n + 1))
    log="$out/sanitize-$tool-$n.log"
    start=$(date +%s)
    # shellcheck disable=SC2086
    "$sanitizer" --tool "$tool" --report-api-errors no --target-processes all --print-limit 20 bash gpu-bundle/run.sh $program > "$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    errors="$(grep -Eo 'ERROR SUMMARY: [0-9]+' "$log" | awk '{s += $3} END {print s + 0}')"
    summary="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)"
    [ "$errors" -gt 0 ] && bad=$((bad + 1))
    [ "$rc" -ne 0 ] && [ "$errors" -eq 0 ] && bad=$((bad + 1))
    table+=("$(printf '%-10s %-52s errors %-4s rc %-3s %5ss  %s' "$tool" "$program" "$errors" "$rc" "$secs" "${summary:-no summary}")")
  done
done
printf '%s\n' "${table[@]}"
echo "$((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
