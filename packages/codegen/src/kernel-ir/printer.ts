// The `kernel_ir` dump: a stable, indented text form of kernel IR.

import { printIndex, type IndexExpr } from './index-expr.js';
import type { Kernel, Operand, Predicate, Stmt, TensorAccess, WelfordAccesses, WelfordOperands } from './nodes.js';

function access(a: TensorAccess): string {
  const suffix = a.memory === 'Global' ? 'g' : a.memory === 'Shared' ? 's' : 'l';
  return `${a.tensor}_${suffix}[${printIndex(a.index)}]`;
}

function operand(o: Operand): string {
  return o.kind === 'tensor' ? access(o) : o.text;
}

function state(w: WelfordAccesses | WelfordOperands): string {
  return `(${operand(w.avg)}, ${operand(w.varSum)}, ${operand(w.n)})`;
}

function predicates(ps: readonly Predicate[]): string {
  return ps.length === 0 ? 'true' : ps.map((p) => `${printIndex(p.index)} < ${printIndex(p.extent)}`).join(' && ');
}

function predicatesSuffix(ps: readonly Predicate[] | undefined): string {
  return ps === undefined || ps.length === 0 ? '' : ` if ${predicates(ps)}`;
}

/** The slot of a multi-stage bulk buffer (nothing for slot 0 / a one-stage buffer). */
function slotSuffix(stage: IndexExpr | undefined): string {
  return stage === undefined || (stage.kind === 'const' && stage.value === 0) ? '' : ` slot ${printIndex(stage)}`;
}

function printStmts(stmts: readonly Stmt[], indent: string, lines: string[]): void {
  for (const s of stmts) {
    switch (s.kind) {
      case 'ForLoop':
        lines.push(`${indent}FOR ${s.index} in 0 .. ${printIndex(s.extent)}${s.unroll ? ' (unroll)' : ''}:`);
        printStmts(s.body, `${indent}  `, lines);
        break;
      case 'IfThenElse':
        lines.push(`${indent}IF ${s.predicates.map((p) => `${printIndex(p.index)} < ${printIndex(p.extent)}`).join(' && ')}:`);
        printStmts(s.then, `${indent}  `, lines);
        if (s.else.length > 0) {
          lines.push(`${indent}ELSE:`);
          printStmts(s.else, `${indent}  `, lines);
        }
        break;
      case 'Allocate':
        lines.push(`${indent}ALLOCATE ${s.buffer}_${s.memory === 'Shared' ? 's' : 'l'} ${s.dtype}[${s.size}] align ${s.align}`);
        break;
      case 'BlockSync':
        lines.push(`${indent}BLOCK_SYNC`);
        break;
      case 'LoadStore':
        lines.push(`${indent}${access(s.out)} = ${s.width > 1 ? `vector<${s.width}> ` : ''}${s.cacheHint === 'evictLast' ? 'evict_last ' : s.cacheHint === 'evictLastL2' ? 'evict_last_l2 ' : ''}${access(s.in)}`);
        break;
      case 'Compute':
        lines.push(`${indent}${access(s.out)} = ${s.op.op}(${s.operands.map(operand).join(', ')}) in ${s.computeDtype}`);
        break;
      case 'Rng': {
        const args = [`linear ${printIndex(s.linearIndex)}`, `seed ${s.seed.text}`, `offset ${s.offset.text}`, ...s.parameters.map((p) => p.text)];
        lines.push(`${indent}${access(s.out)} = rng_${s.op}(${args.join(', ')}) as ${s.dtype}`);
        break;
      }
      case 'IndexedLoad':
        lines.push(
          `${indent}${access(s.out)} = ${s.width > 1 ? `vector<${s.width}> ` : ''}${s.op} ${access(s.lookup)} + ${operand(s.index)} * ${printIndex(s.stride)} (index in [${s.wrapNegative ? `-${printIndex(s.extent)}` : '0'}, ${printIndex(s.extent)}) else trap)`,
        );
        break;
      case 'Iota':
        lines.push(`${indent}${access(s.out)} = iota(${printIndex(s.index)}, start ${s.start.text}, step ${s.step.text})`);
        break;
      case 'ScalarCompute':
        lines.push(`${indent}${s.name} = ${s.op.op}(${s.operands.map(operand).join(', ')}) in ${s.computeDtype}`);
        break;
      case 'ReductionInit':
        lines.push(`${indent}${access(s.out)} = ${s.value.text} (reduction init)`);
        break;
      case 'BlockReduce': {
        const preds = (ps: typeof s.readPredicates): string => (ps.length === 0 ? 'true' : ps.map((p) => `${printIndex(p.index)} < ${printIndex(p.extent)}`).join(' && '));
        lines.push(
          `${indent}${s.allreduce === true ? 'BLOCK_ALLREDUCE' : 'BLOCK_REDUCE'}(${s.reduceDims.join(', ')}) ${access(s.out)} = ${s.op}(${access(s.out)}, ${access(s.in)}) in ${s.accDtype}, init ${s.init.text}, read_pred ${preds(s.readPredicates)}, write_pred ${preds(s.writePredicates)}`,
        );
        const g = s.grouped;
        if (g !== undefined) lines.push(`${indent}  GROUPED WITH ${access(g.out)} = ${g.op}(${access(g.out)}, ${access(g.in)}), init ${g.init.text}`);
        if (s.oneBarrierArea !== undefined) lines.push(`${indent}  ONE BARRIER, shared memory area ${s.oneBarrierArea}`);
        if (s.lanes !== undefined) lines.push(`${indent}  LANES ${s.lanes}`);
        break;
      }
      case 'GridReduce': {
        const preds = (ps: typeof s.readPredicates): string => (ps.length === 0 ? 'true' : ps.map((p) => `${printIndex(p.index)} < ${printIndex(p.extent)}`).join(' && '));
        lines.push(
          `${indent}GRID_REDUCE(${[...s.reduceDims, 'BIDy'].join(', ')}) ${access(s.out)} = ${s.op}(${access(s.out)}, ${access(s.in)}) in ${s.accDtype}, init ${s.init.text}, read_pred ${preds(s.readPredicates)}, write_pred ${preds(s.writePredicates)}, work ${s.work}, semaphores ${s.semaphores}, pending ${s.pending}`,
        );
        if (s.lanes !== undefined) lines.push(`${indent}  LANES ${s.lanes}`);
        break;
      }
      case 'WelfordUpdate':
        lines.push(`${indent}${state(s.out)} = welford(${state(s.out)}, ${state(s.in)}) in ${s.accDtype}`);
        break;
      case 'BlockWelford':
        lines.push(
          `${indent}BLOCK_WELFORD(${s.reduceDims.join(', ')}) ${state(s.out)} = welford(${state(s.out)}, ${state(s.in)}) in ${s.accDtype}, read_pred ${predicates(s.readPredicates)}, write_pred ${predicates(s.writePredicates)}`,
        );
        break;
      case 'GridWelford':
        lines.push(
          `${indent}GRID_WELFORD(${[...s.reduceDims, 'BIDy'].join(', ')}) ${state(s.out)} = welford(${state(s.out)}, ${state(s.in)}) in ${s.accDtype}, read_pred ${predicates(s.readPredicates)}, write_pred ${predicates(s.writePredicates)}, work (${s.work.avg}, ${s.work.varSum}, ${s.work.n}), semaphores ${s.semaphores}, pending ${s.pending}`,
        );
        break;
      case 'GridOuterStore':
        lines.push(`${indent}${s.work}[blockIdx.x * ${printIndex(s.columns)} + ${printIndex(s.column)}] = ${access(s.in)} in ${s.accDtype} (grid outer partial)`);
        break;
      case 'GridOuterReduce':
        lines.push(`${indent}GRID_SYNC ${s.semaphore}`);
        for (const r of s.reductions) {
          lines.push(`${indent}GRID_OUTER_REDUCE(BIDx) ${r.out}_g ${r.outDtype}[0 .. ${printIndex(r.columns)}] = ${r.op} over ${r.work} in ${s.accDtype}, init ${r.init.text}`);
        }
        break;
      case 'BulkLoadIssue':
        for (const c of s.copies) {
          const slots = (c.stages ?? 1) === 1 ? '' : ` × ${c.stages ?? 1} stages`;
          lines.push(`${indent}BULK_COPY ${c.buffer}_s ${c.dtype}[${c.capacity}]${slots} @${c.sharedOffset} ← ${access(c.source)} × ${printIndex(c.elements)}, mbarrier @${c.barrierOffset}${predicatesSuffix(s.predicates)}`);
        }
        for (const group of s.ahead ?? []) {
          for (const c of group.copies) lines.push(`${indent}BULK_COPY_AHEAD ${c.buffer}_s${slotSuffix(c.stage)} ← ${access(c.source)} × ${printIndex(c.elements)}${predicatesSuffix(group.predicates)}`);
        }
        lines.push(`${indent}__syncthreads()`);
        break;
      case 'BulkLoadWait': {
        const parity = s.parity === undefined ? '' : ` (phase parity ${printIndex(s.parity)} % 2)`;
        lines.push(`${indent}BULK_WAIT ${s.buffers.map((b) => `${b}_s${slotSuffix(s.stage)}`).join(', ')}${parity}${predicatesSuffix(s.predicates)}`);
        break;
      }
      case 'BulkLoadReissue':
        lines.push(`${indent}__syncthreads()`);
        for (const c of s.copies) {
          lines.push(`${indent}BULK_COPY_NEXT ${c.buffer}_s${slotSuffix(c.stage)} ← ${access(c.source)} × ${printIndex(c.elements)}${predicatesSuffix(s.predicates)}`);
        }
        break;
      case 'PendingExpr':
        lines.push(`${indent}PENDING ${s.expr.kind}`);
        break;
      default: {
        const unreachable: never = s;
        throw new Error(`unknown statement ${String(unreachable)}`);
      }
    }
  }
}

export function printKernelIr(kernel: Kernel): string {
  const lines: string[] = [];
  const params = kernel.params.map((p) => (p.kind === 'tensor' ? `${p.name}_g ${p.dtype}[${p.rank}]` : `${p.name} ${p.dtype}`));
  for (const g of kernel.deviceGlobals) lines.push(`%global ${g.name} ${g.ctype}[${g.size}]`);
  lines.push(`%kernel ${kernel.name} (${params.join(', ')}) index ${kernel.indexType} {`);
  for (const l of kernel.indexLocals) lines.push(`  ${l.name} = ${l.value}`);
  kernel.divisors.forEach((d, k) => lines.push(`  ${d.name} = fast_divisor(${d.extent}, magic ${k} of ${kernel.params[d.param]?.name ?? '?'}.logical_size[${d.dim}])`));
  printStmts(kernel.body, '  ', lines);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
