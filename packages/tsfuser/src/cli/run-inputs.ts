// The inputs of `tsfuser run`, by priority: --inputs (.npy files and numbers), --shape
// (generated), the file's own inputs list, generated with default sizes.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Tensor } from '@tsfuser/runtime';
import type { InputDescriptor } from '../definition/fusion-definition.js';
import type { ExecuteInput } from '../execute/backend.js';
import { generateInputs, materializeInput } from '../io/input-generation.js';
import type { InputSpec } from '../io/input-spec.js';
import { NpyError, readNpy } from '../io/npy.js';
import { Random } from '../io/random.js';
import { UsageError } from './console.js';

export function parseShape(text: string): number[] {
  const sizes = text.split(',').map((s) => s.trim());
  return sizes.map((s) => {
    const n = Number(s);
    if (s === '' || !Number.isInteger(n) || n < 0) throw new UsageError(`--shape: '${s}' is not a size (expected e.g. --shape 16,512,4096)`);
    return n;
  });
}

/** `--inputs a.npy,2.5,true,b.npy` in definition order. */
export function loadInputFiles(list: string, descriptors: readonly InputDescriptor[], cwd: string): ExecuteInput[] {
  return list.split(',').map((entry, i): ExecuteInput => {
    const item = entry.trim();
    if (item.endsWith('.npy')) {
      const d = descriptors[i];
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(readFileSync(resolve(cwd, item)));
      } catch {
        throw new UsageError(`--inputs: cannot read ${item}`);
      }
      try {
        return Tensor.fromHost(readNpy(bytes, d?.kind === 'tensor' ? d.spec.dtype : undefined));
      } catch (e) {
        if (e instanceof NpyError) throw new UsageError(`--inputs: ${item}: ${e.message}`);
        throw e;
      }
    }
    if (item === 'true' || item === 'True') return true;
    if (item === 'false' || item === 'False') return false;
    const n = Number(item);
    if (item === '' || Number.isNaN(n)) throw new UsageError(`--inputs: '${item}' is neither a .npy file nor a number`);
    return n;
  });
}

export interface InputPlan {
  inputs: ExecuteInput[];
  /** How the inputs were made (printed with the results). */
  source: string;
  /** Generated with default sizes: may be regenerated with uniform sizes if they do not fit. */
  defaultGenerated: boolean;
}

export function planInputs(
  descriptors: readonly InputDescriptor[],
  fileInputs: InputSpec[] | null,
  options: { inputs?: string; shape?: string; seed: number; cwd: string },
): InputPlan {
  const rng = new Random(options.seed);
  if (options.inputs !== undefined) return { inputs: loadInputFiles(options.inputs, descriptors, options.cwd), source: 'from --inputs', defaultGenerated: false };
  if (options.shape !== undefined) {
    return { inputs: generateInputs(descriptors, rng, parseShape(options.shape)), source: `generated (seed ${options.seed}, sizes ${options.shape})`, defaultGenerated: false };
  }
  if (fileInputs !== null) return { inputs: fileInputs.map((s) => materializeInput(s, rng)), source: `from the file's inputs (seed ${options.seed})`, defaultGenerated: false };
  return { inputs: generateInputs(descriptors, rng), source: `generated (seed ${options.seed}, default sizes)`, defaultGenerated: true };
}

/** Fallback when default sizes do not fit the definition's broadcasts: every symbolic dim 8. */
export function uniformInputs(descriptors: readonly InputDescriptor[], seed: number): ExecuteInput[] {
  return generateInputs(descriptors, new Random(seed), new Array<number>(8).fill(8));
}
