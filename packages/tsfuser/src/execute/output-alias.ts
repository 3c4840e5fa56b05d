// In-place outputs (nvFuser's `add_output(t, alias_input=x)`): after a backend computed every
// fusion output, each aliased one is written into its input's storage through the input's own
// strides (strided and non-contiguous inputs included), and outputs that nvFuser hides (those
// that were not fusion outputs before they were aliased, e.g. batch_norm's running stats) are
// dropped from the returned list.
// Invariant: every output is computed before any input is written, so an aliased input is read
// with its old values by the whole fusion; other inputs are never written.

import { copyInto } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import { InputMismatchError } from '../errors.js';
import type { ExecuteInput } from './backend.js';

/** Fusion output `output` is written into fusion input `input`; `hidden` outputs are not returned. */
export interface OutputAlias {
  readonly output: number;
  readonly input: number;
  readonly hidden: boolean;
}

function sameSizes(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((s, d) => s === b[d]);
}

/** Rejects a target that cannot hold one value per element: an expanded (stride-0) dim. */
function checkWritable(alias: OutputAlias, x: Tensor, y: Tensor): void {
  if (!sameSizes(x.sizes, y.sizes)) {
    throw new InputMismatchError(alias.input, `is updated in place by output ${alias.output}, whose sizes [${y.sizes.join(', ')}] differ from the input's [${x.sizes.join(', ')}]`);
  }
  const d = x.sizes.findIndex((s, k) => s > 1 && x.strides[k] === 0);
  if (d >= 0) {
    throw new InputMismatchError(alias.input, `is updated in place by output ${alias.output}, but its dim ${d} is expanded (stride 0, size ${x.sizes[d]}): several elements share one memory location`);
  }
}

function writeInto(x: Tensor, y: Tensor): void {
  if (!x.isDevice) {
    // A host tensor's toHost() is its own storage: the copy lands in the caller's tensor.
    copyInto(x.toHost(), y.toHost());
    return;
  }
  const device = x.device;
  if (device === undefined) throw new Error('writeInto: a device tensor without a device');
  if (y.isDevice && y.dtype === x.dtype && sameSizes(y.strides, x.strides)) {
    device.copyDeviceToDevice(x.dataPtr, y.dataPtr, x.storageBytes);
    return;
  }
  // Layouts differ (a strided input): through the host, keeping the bytes between elements.
  const host = x.toHost();
  copyInto(host, y.toHost());
  device.copyHostToDevice(x.dataPtr, host.data, { byteCount: x.storageBytes });
}

/** Writes aliased outputs into their inputs; returns the outputs execute() reports. */
export function applyOutputAliases(outputs: readonly Tensor[], inputs: readonly ExecuteInput[], aliases: readonly OutputAlias[]): Tensor[] {
  if (aliases.length === 0) return [...outputs];
  const pairs = aliases.map((alias) => {
    const x = inputs[alias.input];
    const y = outputs[alias.output];
    if (!(x instanceof Tensor) || y === undefined) {
      throw new InputMismatchError(alias.input, `is updated in place by output ${alias.output} but is not a tensor`);
    }
    checkWritable(alias, x, y);
    return { alias, x, y };
  });
  // An output that shares storage with an input about to be written (a view the reference
  // backend returned as is) keeps the values it had: copy it first.
  const targets = new Set(pairs.filter((p) => !p.x.isDevice).map((p) => p.x.toHost().data));
  const result = outputs.map((t) => (!t.isDevice && targets.has(t.toHost().data) ? Tensor.fromHost(t.toHost().contiguous()) : t));
  for (const { x, y } of pairs) writeInto(x, y);
  const hidden = new Set(aliases.filter((a) => a.hidden).map((a) => a.output));
  for (const i of hidden) if (result[i]?.isDevice === true) result[i]?.dispose();
  return result.filter((_, i) => !hidden.has(i));
}
