// In-place outputs (nvFuser's `add_output(t, alias_input=x)`): after a backend computed every
// fusion output, each aliased one is written into its input's storage through the input's own
// strides (strided and non-contiguous inputs included). What execute() then returns follows
// nvFuser's FusionExecutorCache: outputs that nvFuser hides (those that were not fusion outputs
// before they were aliased, e.g. batch_norm's running stats) are dropped, and every returned
// output whose storage nvFuser makes the input's — the aliased output itself, and the aliased
// input when it is also a fusion output — is the caller's input tensor, holding the new values;
// an output that is a view of the updated input reads the new values (aliased-views.ts).
// Invariant: every output is computed before any input is written, so the whole fusion reads an
// aliased input's old values; inputs that no output aliases are never written.

import { HostTensor, copyInto, type Fusion, type Val } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import { DefinitionError, InputMismatchError } from '../errors.js';
import { refreshStaleViews } from './aliased-views.js';
import type { ExecuteInput } from './backend.js';

/** Fusion output `output` is written into fusion input `input`; `hidden` outputs are not returned. */
export interface OutputAlias {
  readonly output: number;
  readonly input: number;
  readonly hidden: boolean;
}

/**
 * Adds `alias` to a definition's list as nvFuser's alias map does: keyed by the output, so
 * aliasing an output again replaces its earlier alias (the second add_output(t, x) finds t
 * already an output, hence visible). Two different outputs written into one input are refused:
 * nvFuser writes both into the same buffer in an order nothing specifies.
 */
export function recordAlias(aliases: OutputAlias[], alias: OutputAlias): void {
  const same = aliases.findIndex((a) => a.output === alias.output);
  const other = aliases.find((a) => a.input === alias.input && a.output !== alias.output);
  if (other !== undefined) {
    throw new DefinitionError(
      `addOutput: input ${alias.input} is already updated in place by output ${other.output}; a second output (${alias.output}) written into the same input has no defined result (nvFuser writes both into one buffer in an unspecified order)`,
    );
  }
  if (same >= 0) aliases[same] = alias;
  else aliases.push(alias);
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
    // A host tensor's toHost() is its own storage: the copy lands in the caller's tensor. A y
    // that reads the same storage (a view of x) is copied out first, so no element is read
    // after it was overwritten.
    const source = !y.isDevice && y.toHost().data === x.toHost().data ? y.toHost().contiguous() : y.toHost();
    copyInto(x.toHost(), source);
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

/**
 * For each fusion output, the input whose tensor execute() returns for it (nvFuser: the output
 * is that input's buffer), or -1: an aliased output, or an aliased input returned as is.
 * Matched by Val, so an output added twice (add_output(t, x) then add_output(t)) maps both.
 */
function returnedInputs(fusion: Fusion, aliases: readonly OutputAlias[]): number[] {
  const byVal = new Map<Val, number>();
  for (const a of aliases) {
    const out = fusion.outputs[a.output];
    const input = fusion.inputs[a.input];
    if (out !== undefined) byVal.set(out, a.input);
    if (input !== undefined) byVal.set(input, a.input);
  }
  return fusion.outputs.map((v) => byVal.get(v) ?? -1);
}

/** Writes aliased outputs into their inputs; returns the outputs execute() reports. */
export function applyOutputAliases(fusion: Fusion, outputs: readonly Tensor[], inputs: readonly ExecuteInput[], aliases: readonly OutputAlias[]): Tensor[] {
  if (aliases.length === 0) return [...outputs];
  const pairs = aliases.map((alias) => {
    const x = inputs[alias.input];
    const y = outputs[alias.output];
    if (!(x instanceof Tensor) || y === undefined) {
      throw new InputMismatchError(alias.input, `is updated in place by output ${alias.output} but is not a tensor`);
    }
    checkWritable(alias, x, y);
    return { x, y };
  });
  const sources = returnedInputs(fusion, aliases);
  const returned = outputs.map((t, i) => {
    const j = sources[i] ?? -1;
    return j >= 0 ? (inputs[j] as Tensor) : t;
  });
  for (const { x, y } of pairs) writeInto(x, y);
  const hidden = new Set(aliases.filter((a) => a.hidden).map((a) => a.output));
  const mapped = new Set(sources.flatMap((j, i) => (j >= 0 ? [i] : [])));
  refreshStaleViews(fusion, returned, inputs, new Set(aliases.map((a) => a.input)), new Set([...hidden, ...mapped]));
  const result = returned.filter((_, i) => !hidden.has(i));
  // A backend's device tensor that nothing returns any more (an aliased output, the runtime's
  // copy of a returned input) is freed now rather than by the garbage collector.
  const kept = [...result, ...inputs].filter((t): t is Tensor => t instanceof Tensor);
  for (const t of new Set(outputs)) if (t.isDevice && !kept.includes(t) && !kept.some((k) => sharesMemory(k, t))) t.dispose();
  return result;
}

/** Whether device tensor `k` reads memory of `t` (a view of t's buffer must keep it alive). */
function sharesMemory(k: Tensor, t: Tensor): boolean {
  if (!k.isDevice || k.device !== t.device) return false;
  const start = t.dataPtr;
  const end = start + BigInt(t.storageBytes);
  const kStart = k.dataPtr;
  const kEnd = kStart + BigInt(k.storageBytes);
  return kStart < end && start < kEnd;
}

/**
 * The inputs with each aliased tensor replaced by a host copy in the same layout, so that
 * applyOutputAliases on them shows what execute() returns without writing the caller's tensors.
 */
export function detachAliasedInputs(inputs: readonly ExecuteInput[], aliases: readonly OutputAlias[]): ExecuteInput[] {
  const aliased = new Set(aliases.map((a) => a.input));
  return inputs.map((x, i) => {
    if (!aliased.has(i) || !(x instanceof Tensor)) return x;
    const h = x.toHost();
    return Tensor.fromHost(new HostTensor(h.dtype, h.sizes, h.strides, h.data.slice(), h.offset));
  });
}
