// Lines of nvFuser's ReductionParams::toString layout that the `scheduler_params` dumps of the
// reduction scheduler (reduction/params.ts) and the persistent schedulers (inner, outer,
// inner-outer: their params.ts) share: the opening banner, tag and reduced-dim lines, the
// persistent-kernel lines, the row reduction line of the inner schedulers, the launch
// parameters, and tsfuser's closing lines (vectorized tensors, index type, divisibility).
// Each dump calls these in its own order; the text is exactly what each wrote before.

import type { LaunchDims } from '../launch-dims.js';
import type { IndexType } from '../index-type.js';

/** The params fields of a persistent kernel its dump opens with. */
export interface PersistentDumpFields {
  /** nvFuser's combined_inner_outer (only the inner-outer persistent params have it). */
  combinedInnerOuter?: boolean;
  projectPersistentBuffers: boolean;
  batchesPerBlockInnerReduction: number;
}

/**
 * The dump's opening lines (the leading empty line, the banner, the tag, the reduced dim),
 * the persistent kernel's lines when `persistent` is given, and the circular-buffer line.
 */
export function reductionDumpOpening(tag: string, fastestDim: boolean, persistent: PersistentDumpFields | null): string[] {
  const lines: string[] = [''];
  lines.push('===== Reduction Parameters ========');
  lines.push(`${tag === '' ? '' : 'Tag: '}${tag}`);
  lines.push(fastestDim ? 'Red On Fastest Dim' : 'Red On Slow Dim');
  if (persistent !== null) {
    lines.push('Persistent Kernel');
    if (persistent.combinedInnerOuter === true) lines.push('Combined Inner Outer Reduction');
    if (persistent.projectPersistentBuffers) lines.push('Project Persistent Buffers');
    lines.push(`Batches per block: ${persistent.batchesPerBlockInnerReduction}`);
  }
  lines.push('Circular buffer: not used');
  return lines;
}

/** The params fields of the row (inner) reduction of a persistent kernel over threadIdx.x. */
export interface RowReductionDumpFields {
  padInnerReductionToWarp: boolean;
  batchesPerBlockInnerReduction: number;
  vectorizeInnerReduction: boolean;
  unrollFactorInnerReduction: number;
}

/** The inner reduction line of a persistent row reduction (block allreduce over threadIdx.x). */
export function rowReductionLine(p: RowReductionDumpFields): string {
  let red = 'Inner Reduction Domain: cross block - threadIdx.x / ';
  if (p.padInnerReductionToWarp) red += ' pad to warp / ';
  red += `persistent batch - ${p.batchesPerBlockInnerReduction} / `;
  if (p.vectorizeInnerReduction) red += 'vectorize / ';
  if (p.unrollFactorInnerReduction > 1) red += `factor ${p.unrollFactorInnerReduction}`;
  return red;
}

/** nvFuser's launch-parameter line inside ReductionParams::toString. */
export function launchParamsLine(l: LaunchDims): string {
  return `Launch Parameters: BlockDim.x = ${l.bdimx}, BlockDim.y = ${l.bdimy}, BlockDim.z = ${l.bdimz}, GridDim.x = ${l.gdimx}, GridDim.y = ${l.gdimy}, GridDim.z = ${l.gdimz}`;
}

/** tsfuser's line listing the fusion inputs and outputs whose row accesses are vectorized. */
export function vectorizedTensorsLine(p: { vectorizedInputs: readonly number[]; vectorizedOutputs: readonly number[] }): string {
  return `Vectorized inputs: [${p.vectorizedInputs.join(', ')}] outputs: [${p.vectorizedOutputs.join(', ')}]`;
}

/** Appends the index type, divisibility and closing banner lines and joins the dump. */
export function reductionDumpClosing(lines: readonly string[], p: { indexType: IndexType; divisibleSplits: readonly boolean[] }): string {
  const closing = [
    `Index type: ${p.indexType === 'Int32' ? 'int' : 'int64_t'}`,
    `Divisible splits: [${p.divisibleSplits.map((d) => (d ? 'true' : 'false')).join(', ')}]`,
    '====================================',
  ];
  return `${[...lines, ...closing].join('\n')}\n`;
}
