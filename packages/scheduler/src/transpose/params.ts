// TransposeParams: the decisions of the transpose scheduler for one fusion and one set of
// runtime sizes (nvFuser's TransposeParams, as far as tsfuser's kernel uses them). Group 1 is
// the tensors whose innermost allocation dim is the reference output's innermost dim (read and
// written directly, vectorized by vectorizeFactor1); group 2 is the inputs whose innermost dim
// is another reference dim (staged through a shared-memory tile, loaded vectorized by
// vectorizeFactor2). Equal parameters mean the same kernel (the kernel cache is keyed by them).

import type { IndexType } from '../index-type.js';
import type { LaunchDims } from '../heuristic-params.js';

export interface TransposeParams {
  schedulerType: 'transpose';
  tag: string;
  /** Reference logical dim innermost in group 1 (the reference output's innermost allocation dim). */
  innerDim1: number;
  /** Reference logical dim innermost in group 2 (the staged inputs' stride-1 dim). */
  innerDim2: number;
  /** Tile extent along innerDim1 (nvFuser's tile_size1). */
  tileSize1: number;
  /** Tile extent along innerDim2 (nvFuser's tile_size2). */
  tileSize2: number;
  /** Vector width of group 1's accesses (outputs, and inputs read like them). */
  vectorizeFactor1: number;
  /** Vector width of group 2's loads into the shared-memory tile. */
  vectorizeFactor2: number;
  indexType: IndexType;
  lparams: LaunchDims;
  /**
   * Divisibility of the schedule's splits in the order schedule.ts applies them (innerDim1 by
   * tileSize1, innerDim2 by tileSize2, then the in-tile splits, always divisible).
   */
  divisibleSplits: readonly boolean[];
  /** Fusion input positions of group 2 (staged through shared memory). */
  group2Inputs: readonly number[];
  /** Fusion input positions of group 1 whose loads are vectorized by vectorizeFactor1. */
  vectorizedInputs: readonly number[];
  /** Fusion output positions whose stores are vectorized by vectorizeFactor1. */
  vectorizedOutputs: readonly number[];
}

/** Elements each thread handles per tile. */
export function transposeElementsPerThread(p: TransposeParams): number {
  return (p.tileSize1 * p.tileSize2) / Math.max(1, p.lparams.bdimx);
}

/** nvFuser's `TransposeParams::toString` layout (the `scheduler_params` dump). */
export function transposeParamsToString(p: TransposeParams): string {
  const lines: string[] = [];
  lines.push('');
  lines.push('===== Transpose Parameters ========');
  lines.push(`${p.tag === '' ? '' : 'Tag: '}${p.tag} Transpose Characteristics:`);
  lines.push(` BlckX: ${p.lparams.bdimx}`);
  lines.push(` input tile size: ${p.tileSize1}`);
  lines.push(` output tile size: ${p.tileSize2}`);
  lines.push(` elements per tile: ${p.tileSize1 * p.tileSize2}`);
  const perThread = transposeElementsPerThread(p);
  lines.push(` elements per thread: ${perThread}`);
  if (p.vectorizeFactor1 > 1) lines.push(`Vectorize group 1, Factor: ${p.vectorizeFactor1}`);
  if (perThread / p.vectorizeFactor1 > 1) lines.push(`Unroll group 1, Factor: ${perThread / p.vectorizeFactor1}`);
  if (p.vectorizeFactor2 > 1) lines.push(`Vectorize group 2, Factor: ${p.vectorizeFactor2}`);
  if (perThread / p.vectorizeFactor2 > 1) lines.push(`Unroll group 2, Factor: ${perThread / p.vectorizeFactor2}`);
  lines.push(`Inner dims in the reference: group 1 ${p.innerDim1}, group 2 ${p.innerDim2}`);
  lines.push(`Staged through shared memory: inputs [${p.group2Inputs.join(', ')}]`);
  lines.push(`Index type: ${p.indexType === 'Int32' ? 'int' : 'int64_t'}`);
  lines.push(`Divisible splits: [${p.divisibleSplits.map((d) => (d ? 'true' : 'false')).join(', ')}]`);
  lines.push('====================================');
  return `${lines.join('\n')}\n`;
}
