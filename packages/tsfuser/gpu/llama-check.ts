// GPU entry tsfuser-llama-check: the LLaMA decoder block's forward and backward on the GPU at
// the 7B size (or small) from the inputs tools/bench/llama_block_check.py wrote, outputs written
// beside them for the script's comparison with PyTorch (src/bench/llama-block-check.ts): y, the
// forward's saved activations, and the grads of the backward run on PyTorch's saved activations
// (the script's `inputs` step writes them from the bf16 module's forward) and on the forward's:
//
//   python3 tools/bench/llama_block_check.py inputs /tmp/llama --size 7b \
//     && bash gpu-bundle/run.sh tsfuser-llama-check /tmp/llama --size 7b \
//     && python3 tools/bench/llama_block_check.py compare /tmp/llama --size 7b
//
// Options: --size 7b|small|gqa (default 7b), --backend gpu|reference (default gpu). Exits 1 on
// an error (printed in one line).

import { createGpuBackend } from '../src/execute/gpu-backend.js';
import { LLAMA_7B_CONFIG, LLAMA_SMALL_CONFIG, LLAMA_SMALL_GQA_CONFIG, type LlamaBlockConfig } from '../src/bench/llama-block-config.js';
import { runLlamaCheck } from '../src/bench/llama-block-check.js';

const SIZES: Record<string, LlamaBlockConfig> = { '7b': LLAMA_7B_CONFIG, small: LLAMA_SMALL_CONFIG, gqa: LLAMA_SMALL_GQA_CONFIG };

function option(args: readonly string[], name: string, fallback: string): string {
  const i = args.indexOf(name);
  return i < 0 ? fallback : (args[i + 1] ?? fallback);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const dir = args[0];
  const size = option(args, '--size', '7b');
  const config = SIZES[size];
  const backendName = option(args, '--backend', 'gpu');
  if (dir === undefined || dir.startsWith('--') || config === undefined || (backendName !== 'gpu' && backendName !== 'reference')) {
    throw new Error('usage: tsfuser-llama-check <dir> [--size 7b|small|gqa] [--backend gpu|reference]');
  }
  const backend = backendName === 'gpu' ? createGpuBackend() : 'reference';
  const r = await runLlamaCheck(dir, config, backend);
  console.log(`llama check ${r.config} on ${backendName}: inference ${r.ms.inference.toFixed(0)} ms, training forward ${r.ms.trainingForward.toFixed(0)} ms, backward ${r.ms.backward.toFixed(0)} ms (on PyTorch's saved activations), ${r.ms.chainedBackward.toFixed(0)} ms (on the forward's; first calls, compile included); wrote ${r.written.length} files to ${dir}`);
}

main().catch((error: unknown) => {
  console.error(`tsfuser-llama-check: ${error instanceof Error ? `${error.name}: ${error.message.split('\n')[0] ?? ''}` : String(error)}`);
  process.exitCode = 1;
});
