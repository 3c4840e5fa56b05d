#!/usr/bin/env bash
# Session 9, the one H200 call: the LLaMA block forward / training step beside eager and
# torch.compile (wgmma attention forward now the default on CC 9.0), then the attention forward
# tilings f31 (default) and f34/f35 (warp-specialized) beside PyTorch's SDPA. Summaries last.
set -o pipefail
cd "$(dirname "$0")/../../.."
timeout -s KILL 215 bash gpu-bundle/run.sh tsfuser bench --workloads llama_block_fwd_bf16,llama_block_bwd_bf16 --iters 10 --rounds 1 --json "$OUT/llama.json" > "$OUT/llama.log" 2>&1
echo "llama bench rc $?"
timeout -s KILL 110 bash gpu-bundle/run.sh codegen-attention --no-cases --no-defaults --tilings f31,f34,f35 --tuning-seqs 4096,8192 > "$OUT/attention.log" 2>&1
echo "attention rc $?"
timeout -s KILL 40 python3 tools/bench/attention_bench.py --tsfuser "$OUT/attention.json" > "$OUT/attention-bench.log" 2>&1
echo "attention bench rc $?"
echo "=== llama"; grep -E "^\| llama|TFLOP|ms," "$OUT/llama.log" | tail -16
echo "=== attention"; tail -25 "$OUT/attention.log"
echo "=== attention vs pytorch"; tail -25 "$OUT/attention-bench.log"
