// CUDA text for the grid outer reduction statements of an inner-outer persistent kernel
// (lower/grid-outer-reduction.ts, runtime/grid-outer-reduce.ts): the per-block partial store
// `work[blockIdx.x · columns + column] = acc` and the final grid step — `nvf_grid_sync` on the
// kernel's semaphore, then one `gridOuterReduce(&out[0], work, columns, op, init, smem)` per
// output, the combine op as a lambda over the accumulation type.

import { printIndex } from '../kernel-ir/index-expr.js';
import type { Stmt } from '../kernel-ir/nodes.js';
import { combineLambda } from './reduction.js';
import { computeType, convertTo } from './types.js';

export function gridOuterStoreText(s: Extract<Stmt, { kind: 'GridOuterStore' }>): string {
  const ctype = computeType(s.accDtype);
  const value = convertTo(`${s.in.tensor}[${printIndex(s.in.index)}]`, s.in.dtype, ctype);
  return `${s.work}[static_cast<nvfuser_index_t>(blockIdx.x) * (${printIndex(s.columns)}) + (${printIndex(s.column)})] = ${value};`;
}

export function gridOuterReduceLines(s: Extract<Stmt, { kind: 'GridOuterReduce' }>): string[] {
  const ctype = computeType(s.accDtype);
  const lines = [`nvf_grid_sync(&${s.semaphore}[0]);`];
  for (const r of s.reductions) {
    lines.push(
      `gridOuterReduce(&${r.out}[0], ${r.work}, ${printIndex(r.columns)}, ${combineLambda(r.op, s.accDtype)}, ` +
        `static_cast<${ctype}>(${r.init.text}), reinterpret_cast<${ctype}*>(nvf_shared_mem));`,
    );
  }
  return lines;
}
