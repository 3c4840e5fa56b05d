// The tsfuser half of the LLaMA block's check against PyTorch at any size (the 7B one on the
// GPU host, where Node and PyTorch are separate programs): reads the inputs that
// tools/bench/llama_block_check.py wrote as .npy files, runs the inference forward, the training
// forward and the backward twice on a backend — once on PyTorch's saved activations (the
// backward alone, on inputs a real forward made consistent: o and lse of the same q, k, v), once
// on the training forward's own (the chained step) — and writes the results as .npy for the
// script's `compare` step (which runs the nn.Module in bf16 and float64 and checks norm-wise).
// Files in `dir`: inputs `<name>.npy` for LLAMA_FORWARD_INPUTS and `dy.npy` (bf16 as <u2 bits),
// `saved_<name>.npy` for LLAMA_SAVED (bf16, f32 statistics, uint64 philox); outputs
// `out_y_inference.npy`, `out_y.npy`, `out_saved_<name>.npy` (the forward's saved set but the
// philox pair), `grad_<name>.npy` (from PyTorch's saves) and `grad_chain_<name>.npy` (from
// tsfuser's) for LLAMA_GRADS.
// Invariant: only the definitions' own inputs are read and only these outputs written.

import { join } from 'node:path';
import type { DataType } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import type { Backend, BackendName } from '../execute/backend.js';
import { readNpyFile, writeNpyFile } from '../io/npy-file.js';
import { describeLlamaConfig, type LlamaBlockConfig } from './llama-block-config.js';
import { llamaBlockForward, llamaSavedShapes, LLAMA_FORWARD_INPUTS, LLAMA_SAVED } from './llama-block-forward.js';
import { llamaBlockBackward, LLAMA_GRADS } from './llama-block-backward.js';

export interface LlamaCheckReport {
  config: string;
  /** Milliseconds of each execute (first call: compile included). */
  ms: { inference: number; trainingForward: number; backward: number; chainedBackward: number };
  written: string[];
}

function readInput(dir: string, name: string, dtype: DataType = 'BFloat16'): Tensor {
  return Tensor.fromHost(readNpyFile(join(dir, `${name}.npy`), dtype));
}

/** The philox pair of a dropout-free sdpfa: PyTorch has no value to compare it with. */
const isPhilox = (name: string): boolean => name === 'philox_seed' || name === 'philox_offset';

function write(dir: string, file: string, t: Tensor | undefined, written: string[]): void {
  if (t === undefined) throw new Error(`llama check: no tensor for ${file}`);
  writeNpyFile(join(dir, file), t.toHost());
  written.push(file);
}

/** Runs the block's three definitions at `config` on the inputs in `dir` and writes the outputs there. */
export async function runLlamaCheck(dir: string, config: LlamaBlockConfig, backend: Backend | BackendName): Promise<LlamaCheckReport> {
  const inputs = LLAMA_FORWARD_INPUTS.map((n) => readInput(dir, n));
  const dy = readInput(dir, 'dy');
  const shapes = llamaSavedShapes(config);
  const torchSaved = LLAMA_SAVED.map((n) => readInput(dir, `saved_${n}`, shapes[n].dtype));
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
  LLAMA_SAVED.forEach((n, i) => {
    if (!isPhilox(n)) write(dir, `out_saved_${n}.npy`, forward[1 + i], written);
  });
  const backward = llamaBlockBackward(config);
  const [grads, backwardMs] = await time(() => backward.execute([dy, ...inputs, ...torchSaved], { backend }));
  LLAMA_GRADS.forEach((n, i) => write(dir, `grad_${n}.npy`, grads[i], written));
  const [chained, chainedMs] = await time(() => backward.execute([dy, ...inputs, ...forward.slice(1)], { backend }));
  LLAMA_GRADS.forEach((n, i) => write(dir, `grad_chain_${n}.npy`, chained[i], written));
  for (const t of [...torchSaved, ...inference, ...forward, ...grads, ...chained]) t.dispose();
  return { config: describeLlamaConfig(config), ms: { inference: inferenceMs, trainingForward: forwardMs, backward: backwardMs, chainedBackward: chainedMs }, written };
}
