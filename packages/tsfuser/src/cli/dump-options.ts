// The debug dump options (`--dump a,b` and TSFUSER_DUMP=a,b), with nvFuser's names where nvFuser
// has one. Stages the reference backend does not produce are accepted and say so.

import { UsageError } from './console.js';

export interface DumpOption {
  readonly name: string;
  readonly description: string;
  /** Produced when running on the reference backend. */
  readonly reference: boolean;
}

export const DUMP_OPTIONS: readonly DumpOption[] = [
  { name: 'python_definition', description: 'the definition as TypeScript (fd.print()); with --python also nvFuser\'s python form', reference: true },
  { name: 'fusion_ir_presched', description: 'the Fusion IR before scheduling (nvFuser format)', reference: true },
  { name: 'fusion_ir_segments', description: 'pre-scheduled Fusion IR annotated with segments and why they were not merged', reference: false },
  { name: 'segmented_fusion', description: 'the segments (groups, edges, scheduler per group)', reference: false },
  { name: 'scheduler_params', description: 'the heuristics each scheduler chose', reference: false },
  { name: 'fusion_ir', description: 'the scheduled Fusion IR with transforms', reference: false },
  { name: 'fusion_ir_math', description: 'the scheduled Fusion IR, math only', reference: false },
  { name: 'kernel_ir', description: 'the lowered kernel IR', reference: false },
  { name: 'cuda_kernel', description: 'the generated CUDA C++', reference: false },
  { name: 'launch_param', description: 'grid, block and shared memory of each launch', reference: false },
  { name: 'ptxas_verbose', description: 'register and spill counts from the compiler', reference: false },
];

/** Parses a comma list; an unknown name is a UsageError listing the valid ones. */
export function parseDumpOptions(text: string | undefined, source: string): Set<string> {
  const out = new Set<string>();
  if (text === undefined) return out;
  for (const raw of text.split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    if (!DUMP_OPTIONS.some((o) => o.name === name)) {
      throw new UsageError(`unknown dump option '${name}' in ${source}; valid options: ${DUMP_OPTIONS.map((o) => o.name).join(', ')}`);
    }
    out.add(name);
  }
  return out;
}
