// CUDA text for reduction statements: the accumulator's init value in its storage type, the
// `blockReduce<X, Y>(out, in, op, smem, read_pred, write_pred, init)` (or `blockAllreduce`,
// same arguments, when every thread needs the result) and
// `gridReduce<X, Y>(…, work, semaphores, …)` calls (`blockReduceLanes` / `gridReduceLanes<X, Y, N>`
// on lane 0's address for the lanes of an iteration vector) with the combine op as a lambda over the
// accumulation type (NaN-propagating max/min as the reference evaluator), the dynamic shared
// memory the block reductions use, and the kernel's static grid reduction buffers. Welford
// statements become `welfordCombine(avg, M2, N, in_avg, in_M2, in_N)`,
// `blockWelford<X, Y>(…, smem, read_pred, write_pred)` and `gridWelford<X, Y>(…)` calls
// (runtime/welford.ts) on the three accumulators.

import type { DataType, ReductionOpType } from '@tsfuser/fusion-ir';
import { printIndex } from '../kernel-ir/index-expr.js';
import type { Operand, Predicate, Stmt, TensorAccess, WelfordAccesses } from '../kernel-ir/nodes.js';
import { CodegenError } from '../errors.js';
import { binaryExpression } from './op-expressions.js';
import { computeKind, computeType, convertTo, storeAs } from './types.js';

/** Dynamic shared memory, declared once per kernel (8-byte aligned through `double`). */
export const SHARED_MEMORY_DECL = 'extern __shared__ double nvf_shared_mem[];';

/** An init literal (C text of a double or integer constant) as a value of storage dtype `d`. */
export function reductionInitText(literal: string, d: DataType): string {
  if (d === 'Index') return `static_cast<nvfuser_index_t>(${literal})`;
  const ctype = computeType(d);
  return storeAs(`static_cast<${ctype}>(${literal})`, ctype, d);
}

/** `(a, b) → a ⊕= b` over C type `ctype` of compute kind of `accDtype`. */
export function combineLambda(op: ReductionOpType, accDtype: DataType): string {
  const ctype = computeType(accDtype);
  const binary = op === 'add' ? 'add' : op === 'mul' ? 'mul' : op === 'max' ? 'maximum' : 'minimum';
  return `[](${ctype}& a, ${ctype} b) { a = ${binaryExpression(binary, 'a', 'b', computeKind(accDtype))}; }`;
}

function predicateText(ps: readonly Predicate[]): string {
  return ps.length === 0 ? 'true' : ps.map((p) => `${printIndex(p.index)} < ${printIndex(p.extent)}`).join(' && ');
}

/** `const nvfuser_index_t <pending> = gridReduce<…>(…) ? 0 : 1` */
export function gridReduceDecl(s: Extract<Stmt, { kind: 'GridReduce' }>, outText: string, inText: string): string {
  const ctype = computeType(s.accDtype);
  const x = s.reduceDims.includes('TIDx');
  const y = s.reduceDims.includes('TIDy');
  if (s.lanes !== undefined) {
    return (
      `const nvfuser_index_t ${s.pending} = gridReduceLanes<${x}, ${y}, ${s.lanes}>(&${outText}, &${inText}, ${combineLambda(s.op, s.accDtype)}, ` +
      `reinterpret_cast<${ctype}*>(nvf_shared_mem), reinterpret_cast<${ctype}*>(${s.work}), ${s.semaphores}, ` +
      `${predicateText(s.readPredicates)}, ${predicateText(s.writePredicates)}, static_cast<${ctype}>(${s.init.text})) ? 0 : 1`
    );
  }
  return (
    `const nvfuser_index_t ${s.pending} = gridReduce<${x}, ${y}>(${outText}, ${inText}, ${combineLambda(s.op, s.accDtype)}, ` +
    `reinterpret_cast<${ctype}*>(nvf_shared_mem), reinterpret_cast<${ctype}*>(${s.work}), ${s.semaphores}, ` +
    `${predicateText(s.readPredicates)}, ${predicateText(s.writePredicates)}, static_cast<${ctype}>(${s.init.text})) ? 0 : 1`
  );
}

/** Static `__device__` arrays declared before the kernel (zero-initialised at module load). */
export function deviceGlobalDecls(globals: readonly { name: string; ctype: string; size: number }[]): string[] {
  return globals.map((g) => `__device__ ${g.ctype} ${g.name}[${g.size}];`);
}

export function blockReduceCall(s: Extract<Stmt, { kind: 'BlockReduce' }>, outText: string, inText: string): string {
  const ctype = computeType(s.accDtype);
  const x = s.reduceDims.includes('TIDx');
  const y = s.reduceDims.includes('TIDy');
  const g = s.grouped;
  if (g !== undefined) {
    if (s.allreduce !== true) throw new CodegenError('a grouped block reduction must be an allreduce');
    return (
      `blockAllreduce2<${x}, ${y}>(${outText}, ${inText}, ${combineLambda(s.op, s.accDtype)}, ${accessText(g.out)}, ${accessText(g.in)}, ${combineLambda(g.op, s.accDtype)}, ` +
      `reinterpret_cast<${ctype}*>(nvf_shared_mem), ${predicateText(s.readPredicates)}, ${predicateText(s.writePredicates)}, ` +
      `static_cast<${ctype}>(${s.init.text}), static_cast<${ctype}>(${g.init.text}))`
    );
  }
  if (s.lanes !== undefined) {
    if (s.allreduce === true || s.oneBarrierArea !== undefined) throw new CodegenError('a block reduction of lanes is neither an allreduce nor single-barrier');
    return (
      `blockReduceLanes<${x}, ${y}, ${s.lanes}>(&${outText}, &${inText}, ${combineLambda(s.op, s.accDtype)}, ` +
      `reinterpret_cast<${ctype}*>(nvf_shared_mem), ${predicateText(s.readPredicates)}, ${predicateText(s.writePredicates)}, ` +
      `static_cast<${ctype}>(${s.init.text}))`
    );
  }
  // An allreduce (persistent normalization) hands the result to every thread of the segment.
  const area = s.oneBarrierArea;
  if (area !== undefined && s.allreduce !== true) throw new CodegenError('a one-barrier block reduction must be an allreduce');
  const fn = area !== undefined ? 'blockAllreduceOneBarrier' : s.allreduce === true ? 'blockAllreduce' : 'blockReduce';
  const smem = `reinterpret_cast<${ctype}*>(nvf_shared_mem)${area === 1 ? ' + blockDim.x * blockDim.y' : ''}`;
  return (
    `${fn}<${x}, ${y}>(${outText}, ${inText}, ${combineLambda(s.op, s.accDtype)}, ` +
    `${smem}, ${predicateText(s.readPredicates)}, ${predicateText(s.writePredicates)}, ` +
    `static_cast<${ctype}>(${s.init.text}))`
  );
}

function accessText(a: TensorAccess): string {
  return `${a.tensor}[${printIndex(a.index)}]`;
}

/**
 * An input operand of a Welford merge as a value of C type `ctype` (literals cast explicitly:
 * welfordCombine deduces T from every avg / M2 argument). Counts pass as they are.
 */
function welfordOperand(o: Operand, ctype: string): string {
  if (ctype === 'nvfuser_index_t') return o.kind === 'tensor' ? accessText(o) : o.text;
  if (o.kind === 'scalar') return `static_cast<${ctype}>(${o.text})`;
  return convertTo(accessText(o), o.dtype, ctype);
}

function stateText(w: WelfordAccesses): string {
  return `${accessText(w.avg)}, ${accessText(w.varSum)}, ${accessText(w.n)}`;
}

/** `welfordCombine(avg, M2, N, x, 0, 1)` (raw value x) or with a partial state. */
export function welfordUpdateCall(s: Extract<Stmt, { kind: 'WelfordUpdate' }>): string {
  const ctype = computeType(s.accDtype);
  return (
    `welfordCombine(${stateText(s.out)}, ${welfordOperand(s.in.avg, ctype)}, ` +
    `${welfordOperand(s.in.varSum, ctype)}, ${welfordOperand(s.in.n, 'nvfuser_index_t')})`
  );
}

export function blockWelfordCall(s: Extract<Stmt, { kind: 'BlockWelford' }>): string {
  const x = s.reduceDims.includes('TIDx');
  const y = s.reduceDims.includes('TIDy');
  return (
    `blockWelford<${x}, ${y}>(${stateText(s.out)}, ${stateText(s.in)}, nvf_shared_mem, ` +
    `${predicateText(s.readPredicates)}, ${predicateText(s.writePredicates)})`
  );
}

/** `const nvfuser_index_t <pending> = gridWelford<…>(…) ? 0 : 1` */
export function gridWelfordDecl(s: Extract<Stmt, { kind: 'GridWelford' }>): string {
  const ctype = computeType(s.accDtype);
  const x = s.reduceDims.includes('TIDx');
  const y = s.reduceDims.includes('TIDy');
  return (
    `const nvfuser_index_t ${s.pending} = gridWelford<${x}, ${y}>(${stateText(s.out)}, ${stateText(s.in)}, nvf_shared_mem, ` +
    `reinterpret_cast<${ctype}*>(${s.work.avg}), reinterpret_cast<${ctype}*>(${s.work.varSum}), ` +
    `reinterpret_cast<nvfuser_index_t*>(${s.work.n}), ${s.semaphores}, ` +
    `${predicateText(s.readPredicates)}, ${predicateText(s.writePredicates)}) ? 0 : 1`
  );
}
