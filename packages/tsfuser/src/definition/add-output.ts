// What an `addOutput` record does to the Fusion, with nvFuser's OutputRecord semantics:
//   [t]                 t becomes a fusion output;
//   [t, x]              t is written into input x's storage (Fusion::aliasOutputToInput with
//                       ReuseBuffer): a set() is inserted when t is itself an input, and the
//                       output is hidden from execute's results unless t already was an output;
//   [t, null, order]    t becomes an output whose allocation follows stride order `order`.
// Invariant: an alias names a fusion input tensor of t's rank and dtype, by fusion indices.

import { set, setStrideOrder, type Fusion, type Scalar, type TensorView } from '@tsfuser/fusion-ir';
import { DefinitionError } from '../errors.js';
import type { OutputAlias } from '../execute/output-alias.js';
import type { TensorHandle } from './handles.js';
import type { ResolvedValue } from './op-spec.js';

/** `addOutput(t, { aliasInput, strideOrder })`: at most one of the two. */
export interface OutputOptions {
  aliasInput?: TensorHandle | null;
  strideOrder?: readonly number[];
}

function isTensor(v: ResolvedValue | undefined): v is TensorView {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'kind' in v && v.kind === 'tensorView';
}

function isScalar(v: ResolvedValue | undefined): v is Scalar {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'kind' in v && v.kind === 'scalar';
}

function aliasOutputToInput(fusion: Fusion, output: TensorView, input: TensorView): OutputAlias {
  const inputIndex = fusion.inputs.indexOf(input);
  if (inputIndex < 0) throw new DefinitionError(`addOutput: alias_input T${input.name} is not a fusion input (define it with defineTensor)`);
  const rank = (tv: TensorView): number => tv.domain.logicalNoReductions().length;
  if (rank(output) !== rank(input) || output.dtype !== input.dtype) {
    throw new DefinitionError(
      `addOutput: output T${output.name} (${output.dtype}, rank ${rank(output)}) cannot be written into alias_input T${input.name} (${input.dtype}, rank ${rank(input)}): rank and dtype must match`,
    );
  }
  // A fusion input cannot be its own output: copy it so that a kernel writes the buffer.
  const written = fusion.inputs.includes(output) ? set(output) : output;
  const index = fusion.outputs.indexOf(written);
  if (index >= 0) return { output: index, input: inputIndex, hidden: false };
  fusion.addOutput(written);
  return { output: fusion.outputs.length - 1, input: inputIndex, hidden: true };
}

/** Applies one addOutput record's resolved arguments; returns the alias it declares, if any. */
export function applyOutput(fusion: Fusion, args: readonly ResolvedValue[]): OutputAlias | null {
  const [output, alias, order] = args;
  if (alias !== undefined && alias !== null) {
    if (!isTensor(output) || !isTensor(alias)) throw new DefinitionError('addOutput: only a tensor output can alias an input tensor');
    return aliasOutputToInput(fusion, output, alias);
  }
  if (isScalar(output)) {
    if (order !== undefined && order !== null) throw new DefinitionError("addOutput: stride_order can't be dictated for scalar outputs");
    fusion.addOutput(output);
    return null;
  }
  if (!isTensor(output)) throw new DefinitionError('addOutput: expected a tensor or scalar');
  if (Array.isArray(order)) {
    if (fusion.inputs.includes(output)) throw new DefinitionError(`addOutput: T${output.name} is a fusion input; its layout is the caller's, so stride_order cannot be set on it`);
    try {
      setStrideOrder(output, order as number[], 'addOutput');
    } catch (error) {
      throw new DefinitionError(error instanceof Error ? error.message : String(error));
    }
  }
  fusion.addOutput(output);
  return null;
}
