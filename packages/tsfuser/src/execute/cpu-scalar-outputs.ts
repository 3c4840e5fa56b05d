// nvFuser's refusal of CPU scalar outputs (KernelExecutor::supported, hasCpuScalarOutputs in
// csrc/runtime/executor.cpp; nvFuser's test_issue2853 and test_single_segment_multi_device): an
// expression whose tensor inputs are all CPU scalar tensors (fusion inputs declared
// `is_cpu=True`) computes a CPU scalar, and no kernel writes one, so a fusion with such an output
// fails at execute with "KernelExecutor does not support the Fusion provided." tsfuser would
// compute it (on the host or in a kernel) — it refuses instead, on every backend, as nvFuser does.
// Kept as nvFuser has it: only the direct outputs of such expressions count (their consumers are
// CUDA tensors again), an input forwarded as an output is no expression (it stays on the CPU),
// and a CPU scalar combined with a CUDA tensor is a CUDA tensor (nvFuser's test_cpu_add).

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import type { InputDescriptor } from '../definition/fusion-definition.js';
import { DefinitionError } from '../errors.js';

/** The positions of the fusion outputs nvFuser's KernelExecutor refuses: each computed from CPU scalar inputs only. */
export function cpuScalarOutputs(fusion: Fusion, descriptors: readonly InputDescriptor[]): number[] {
  const cpuInputs = new Set<TensorView>();
  fusion.inputs.forEach((v, i) => {
    const d = descriptors[i];
    if (v.kind === 'tensorView' && d?.kind === 'tensor' && d.spec.isCpu) cpuInputs.add(v);
  });
  if (cpuInputs.size === 0) return [];
  const refused: number[] = [];
  fusion.outputs.forEach((out, i) => {
    const def = out.definition;
    if (out.kind !== 'tensorView' || def === null) return;
    const tensorInputs = def.inputs.filter((v): v is TensorView => v.kind === 'tensorView');
    if (tensorInputs.length > 0 && tensorInputs.every((t) => cpuInputs.has(t))) refused.push(i);
  });
  return refused;
}

/** Throws nvFuser's error when the fusion has an output computed from CPU scalar inputs only. */
export function checkNoCpuScalarOutputs(fusion: Fusion, descriptors: readonly InputDescriptor[]): void {
  const refused = cpuScalarOutputs(fusion, descriptors);
  if (refused.length === 0) return;
  const which = refused.length === 1 ? `output ${refused[0]} is` : `outputs ${refused.join(', ')} are`;
  throw new DefinitionError(
    `KernelExecutor does not support the Fusion provided. (fusion ${which} computed from CPU scalar tensors (is_cpu=True) only: ` +
      'no kernel writes a CPU tensor)',
  );
}
