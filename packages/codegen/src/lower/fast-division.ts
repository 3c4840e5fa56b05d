// Core pass `fast-division` (the last one; only where the scheduler's lowering options enable
// it: Int32 pointwise kernels whose index values the scheduler bounded below 2^30). A division
// or modulo of an index by a run-time extent (`idx / i3`, `% i1`: a kernel's sizes are
// arguments, so each is a ~15-instruction sequence with three quarter-rate conversions) becomes
// a division by an `NvfDivisor` (`idx / i3_div`): PyTorch's IntDivider, a multiply-high, an add
// and a shift, with the magic number and shift computed on the host once per launch plan and
// passed as the kernel's last parameter (arguments.ts DivisorArgument, divisor-magic.ts).
// In: the finished statement tree, the kernel's index locals and parameters. Out: the tree with
// those divisions renamed, and the divisors (Kernel.divisors) in index-local order.
// Invariant: only a division whose divisor is an extent local read from a tensor parameter's
// logical size and whose dividend is provably non-negative — built from non-negative integer
// literals, thread and block indices, loop indices and extent / stride locals by +, *, / and % —
// is rewritten (the device helper is exact for 0 ≤ n < 2^31; the scheduler bounds n < 2^30);
// every other division (a dividend with a negative offset or a computed scalar) keeps C's `/`,
// and no other use of the extent changes. The text is otherwise byte-identical.

import { isym, symbolsOf, type IndexExpr } from '../kernel-ir/index-expr.js';
import { forEachIndex, mapStmtIndices } from '../kernel-ir/map-indices.js';
import { allStmts } from '../kernel-ir/effects.js';
import type { IndexLocal, KernelDivisor, KernelParam, Stmt } from '../kernel-ir/nodes.js';

const EXTENT = /^(T\d+)\.logical_size\[(\d+)\]$/;
const TENSOR_FIELD = /^T\d+\.(logical_size|alloc_stride)\[\d+\]$/;
const THREAD_INDEX = /^(threadIdx|blockIdx|blockDim)\.[xyz]$/;
const INT32_MAX = 2 ** 31 - 1;

/** The suffix of a fast divisor's name (`i3` → `i3_div`). */
const SUFFIX = '_div';

/** Names whose values are never negative: thread / block indices, loop indices, extent and stride locals, tensor fields. */
function nonNegativeNames(body: readonly Stmt[], indexLocals: readonly IndexLocal[]): (name: string) => boolean {
  const loops = new Set(allStmts(body).flatMap((s) => (s.kind === 'ForLoop' ? [s.index] : [])));
  const locals = new Set(indexLocals.filter((l) => TENSOR_FIELD.test(l.value)).map((l) => l.name));
  return (name) => THREAD_INDEX.test(name) || loops.has(name) || locals.has(name) || TENSOR_FIELD.test(name);
}

function isNonNegative(e: IndexExpr, named: (name: string) => boolean): boolean {
  switch (e.kind) {
    case 'const':
      return e.value >= 0 && e.value <= INT32_MAX;
    case 'sym':
      return named(e.name);
    default:
      return isNonNegative(e.a, named) && isNonNegative(e.b, named);
  }
}

export function fastDivisions(body: readonly Stmt[], indexLocals: readonly IndexLocal[], params: readonly KernelParam[]): { body: Stmt[]; divisors: KernelDivisor[] } {
  // Extent locals read from a tensor parameter's logical size: the packer can compute their magic.
  const candidates = new Map<string, { param: number; dim: number }>();
  for (const l of indexLocals) {
    const m = EXTENT.exec(l.value);
    const param = m === null ? -1 : params.findIndex((p) => p.kind === 'tensor' && p.name === m[1]);
    if (m !== null && param >= 0) candidates.set(l.name, { param, dim: Number(m[2]) });
  }
  if (candidates.size === 0) return { body: [...body], divisors: [] };
  // A fast divisor's name must not be taken already.
  const taken = new Set<string>(indexLocals.map((l) => l.name));
  forEachIndex(body, (e) => symbolsOf(e, taken));
  for (const s of allStmts(body)) if (s.kind === 'ForLoop') taken.add(s.index);
  const named = nonNegativeNames(body, indexLocals);
  const used = new Set<string>();
  const rewrite = (e: IndexExpr): IndexExpr => {
    if (e.kind === 'const' || e.kind === 'sym') return e;
    // The dividend's sign is judged before its own divisions are renamed (a quotient of
    // non-negative terms is non-negative).
    const a = rewrite(e.a);
    const b = rewrite(e.b);
    const fast = (e.kind === 'div' || e.kind === 'mod') && b.kind === 'sym' && candidates.has(b.name) && !taken.has(b.name + SUFFIX) && isNonNegative(e.a, named);
    if (fast) {
      used.add(b.name);
      return { kind: e.kind, a, b: isym(b.name + SUFFIX) };
    }
    return a === e.a && b === e.b ? e : { kind: e.kind, a, b };
  };
  const rewritten = mapStmtIndices(body, rewrite);
  const divisors: KernelDivisor[] = indexLocals
    .filter((l) => used.has(l.name))
    .map((l) => {
      const c = candidates.get(l.name) as { param: number; dim: number };
      return { name: l.name + SUFFIX, extent: l.name, param: c.param, dim: c.dim };
    });
  return { body: rewritten, divisors };
}
