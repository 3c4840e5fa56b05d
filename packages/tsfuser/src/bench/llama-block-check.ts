// The tsfuser half of the LLaMA block's check against PyTorch at any size (the 7B one on the
// GPU host, where Node and PyTorch are separate programs): reads the inputs that
// tools/bench/llama_block_check.py wrote as .npy files, runs the inference forward, the training
// forward and the backward on a backend, and writes y and the grads as .npy for the script's
// `compare` step (which runs the nn.Module in bf16 and float64 and checks the norm-wise bound).
// Files in `dir`: inputs `<name>.npy` for LLAMA_FORWARD_INPUTS and `dy.npy` (bf16 as <u2 bits);
// outputs `out_y.npy`, `out_y_inference.npy`, `grad_<name>.npy` for LLAMA_GRADS.
// Invariant: only the definitions' own inputs are read and only these outputs written.

import { join } from 'node:path';
import { Tensor } from '@tsfuser/device';
import type { Backend, BackendName } from '../execute/backend.js';
import { readNpyFile, writeNpyFile } from '../io/npy-file.js';
import { describeLlamaConfig, type LlamaBlockConfig } from './llama-block-config.js';
import { llamaBlockForward, LLAMA_FORWARD_INPUTS } from './llama-block-forward.js';
import { llamaBlockBackward, LLAMA_GRADS } from './llama-block-backward.js';

export interface LlamaCheckReport {
  config: string;
  /** Milliseconds of each execute (first call: compile included). */
  ms: { inference: number; trainingForward: number; backward: number };
  written: string[];
}

function readInput(dir: string, name: string): Tensor {
  return Tensor.fromHost(readNpyFile(join(dir, `${name}.npy`), 'BFloat16'));
}

function write(dir: string, file: string, t: Tensor | undefined, written: string[]): void {
  if (t === undefined) throw new Error(`llama check: no tensor for ${file}`);
  writeNpyFile(join(dir, file), t.toHost());
  written.push(file);
}

/** Runs the block's three definitions at `config` on the inputs in `dir` and writes the outputs there. */
export async function runLlamaCheck(dir: string, config: LlamaBlockConfig, backend: Backend | BackendName): Promise<LlamaCheckReport> {
  const inputs = LLAMA_FORWARD_INPUTS.map((n) => readInput(dir, n));
  const dy = readInput(dir, 'dy');
  const written: string[] = [];
  const time = async (run: () => Promise<Tensor[]>): Promise<[Tensor[], number]> => {
    const t0 = performance.now();
    const out = await run();
    return [out, performance.now() - t0];
  };
  const [inference, inferenceMs] = await time(() => llamaBlockForward(config, { saveForBackward: false }).execute(inputs, { backend }));
  write(dir, 'out_y_inference.npy', inference[0], written);
  const [forward, forwardMs] = await time(() => llamaBlockForward(config, { saveForBackward: true }).execute(inputs, { backend }));
  write(dir, 'out_y.npy', forward[0], written);
  const [grads, backwardMs] = await time(() => llamaBlockBackward(config).execute([dy, ...inputs, ...forward.slice(1)], { backend }));
  LLAMA_GRADS.forEach((n, i) => write(dir, `grad_${n}.npy`, grads[i], written));
  for (const t of [...inference, ...forward, ...grads]) t.dispose();
  return { config: describeLlamaConfig(config), ms: { inference: inferenceMs, trainingForward: forwardMs, backward: backwardMs }, written };
}
