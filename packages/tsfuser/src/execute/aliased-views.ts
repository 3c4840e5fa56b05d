// Outputs that are views of an input updated in place. nvFuser returns such an output (set,
// permute, reshape, broadcast, expand, squeeze, slice of the input: its alias analysis) as a view
// of the input's buffer, so after the in-place write it reads the new values. A backend that
// shares storage does the same by itself (the reference backend's views, the GPU runtime's views
// of a device input); one that returned a copy — the GPU runtime given a host input, whose device
// copy is a temporary — gets the output evaluated again here, on the host, from the updated input:
// only the output's chain of views runs, and the result is a view of the caller's host tensor.
// Invariant: only outputs whose whole definition chain is view ops on one aliased input are
// touched; nothing else is evaluated.

import { HostTensor, evaluate, type EvalValue, type Fusion, type Val } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import type { ExecuteInput } from './backend.js';

/** The expressions nvFuser's alias analysis (and tsfuser's expr_eval segment) treats as views. */
const VIEW_KINDS: ReadonlySet<string> = new Set(['LoadStoreOp', 'ViewOp', 'BroadcastOp', 'ExpandOp', 'SqueezeOp', 'SliceOp']);

/** The fusion input `v` is a chain of views of, or -1. */
export function viewBaseInput(fusion: Fusion, v: Val): number {
  let current = v;
  for (;;) {
    const j = fusion.inputs.indexOf(current);
    if (j >= 0) return j;
    const def = current.definition;
    if (def === null || !VIEW_KINDS.has(def.kind)) return -1;
    const tensors = def.inputs.filter((i) => i.kind === 'tensorView');
    if (tensors.length !== 1) return -1;
    current = tensors[0] as Val;
  }
}

/**
 * Replaces, in `returned` (one tensor per fusion output), each output that is a view of an
 * aliased host input but came back from the backend in storage of its own, by the view
 * evaluated on the host from the (already written) input. `aliasedInputs`: the inputs written.
 */
export function refreshStaleViews(fusion: Fusion, returned: Tensor[], inputs: readonly ExecuteInput[], aliasedInputs: ReadonlySet<number>, skip: ReadonlySet<number>): void {
  const stale = returned.flatMap((t, i) => {
    if (skip.has(i)) return [];
    const base = viewBaseInput(fusion, fusion.outputs[i] as Val);
    const x = inputs[base];
    if (base < 0 || !aliasedInputs.has(base) || !(x instanceof Tensor) || x.isDevice) return [];
    const sharesStorage = !t.isDevice && t.toHost().data === x.toHost().data;
    return sharesStorage ? [] : [i];
  });
  if (stale.length === 0) return;
  const { fusion: views, map } = fusion.clone();
  for (const v of [...views.outputs]) views.removeOutput(v);
  for (const i of stale) views.addOutput(map.get(fusion.outputs[i] as Val) as Val);
  const values = evaluate(views, inputs.map((x): EvalValue => (x instanceof Tensor ? x.toHost() : x)));
  stale.forEach((i, k) => {
    const v = values[k];
    if (v instanceof HostTensor) returned[i] = Tensor.fromHost(v);
  });
}
