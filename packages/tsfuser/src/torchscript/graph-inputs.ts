// The inputs of a TorchScript graph given as files: `--inputs a.npy,2.5,true` for `tsfuser fuse`,
// and the fixtures' in<i>.npy. Each entry becomes the RunValue of the graph input at its
// position: a .npy becomes a HostTensor (read as the input's declared dtype where the file
// alone is ambiguous: '<u2' bit patterns are bfloat16), a number or bool a scalar.
// Invariant: one value per graph input, or one InputListError (exit 1: bad inputs, as `run`)
// naming the entry and its index. Files are read streamed (readNpyFile: no 2 GiB limit).

import { resolve } from 'node:path';
import type { DataType } from '@tsfuser/fusion-ir';
import type { Graph, JitType } from '@tsfuser/jit-ir';
import type { RunValue } from '@tsfuser/graph-fuser';
import { NpyError, readNpy } from '../io/npy.js';
import { NpyFileError, readNpyFile } from '../io/npy-file.js';
import { InputListError } from '../errors.js';

const DTYPES: Readonly<Record<string, DataType>> = { Float: 'Float', Half: 'Half', BFloat16: 'BFloat16', Double: 'Double', Bool: 'Bool', Long: 'Int', Int: 'Int32' };

/** The fusion dtype of a graph input's tensor type (its scalar type, or that of its profile). */
export function tensorDataType(graph: Graph, index: number): DataType | undefined {
  const v = graph.inputs[index];
  if (v === undefined) return undefined;
  const typed = (t: JitType): DataType | undefined => (t.kind === 'Tensor' && t.scalarType !== null ? DTYPES[t.scalarType] : undefined);
  const own = typed(v.type);
  if (own !== undefined) return own;
  for (const u of v.uses) {
    const p = u.user.kind === 'prim::profile' ? u.user.attribute('profiled_type') : undefined;
    if (p?.kind === 'ty') {
      const d = typed(p.value);
      if (d !== undefined) return d;
    }
  }
  return undefined;
}

/** Reads one .npy as the RunValue of graph input `index`. */
export function readNpyInput(bytes: Uint8Array, graph: Graph, index: number, what: string): RunValue {
  try {
    return readNpy(bytes, tensorDataType(graph, index));
  } catch (e) {
    if (e instanceof NpyError) throw new InputListError(`--inputs: ${what} (input ${index}): ${e.message}`);
    throw e;
  }
}

/** `--inputs a.npy,2.5,true,b.npy`: one entry per graph input, in order. */
export function loadGraphInputs(list: string, graph: Graph, cwd: string): RunValue[] {
  const entries = list.split(',').map((s) => s.trim());
  if (entries.length !== graph.inputs.length) {
    throw new InputListError(`--inputs: the graph has ${graph.inputs.length} input${graph.inputs.length === 1 ? '' : 's'} but ${entries.length} entr${entries.length === 1 ? 'y was' : 'ies were'} given`);
  }
  return entries.map((item, i): RunValue => {
    if (item.endsWith('.npy')) {
      try {
        return readNpyFile(resolve(cwd, item), tensorDataType(graph, i));
      } catch (e) {
        if (e instanceof NpyFileError) throw new InputListError(`--inputs: cannot read ${item} (input ${i})`);
        if (e instanceof NpyError) throw new InputListError(`--inputs: ${item} (input ${i}): ${e.message}`);
        throw e;
      }
    }
    if (item === 'true' || item === 'True') return true;
    if (item === 'false' || item === 'False') return false;
    const n = Number(item);
    if (item === '' || Number.isNaN(n)) throw new InputListError(`--inputs: '${item}' (input ${i}) is neither a .npy file nor a number`);
    return n;
  });
}
