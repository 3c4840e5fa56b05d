// The orders the printers walk a fusion in. Tensors are listed the way nvFuser's usedMathVals
// lists them: a depth-first post-order from the outputs, so each tensor comes right after the
// tensors it is computed from (fusion inputs appear where they are first used, not up front).
// ID exprs are listed in dependency order between two domains of one tensor.

import { isIterDomainExpr, type Expr } from '../ir/expr.js';
import type { Fusion } from '../ir/fusion.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { Val } from '../ir/val.js';

/** TensorViews the outputs depend on, producers first, in nvFuser's usedMathVals order. */
export function usedTensorViews(fusion: Fusion): TensorView[] {
  const seen = new Set<Val>();
  const order: TensorView[] = [];
  // Iterative post-order so fusions with thousands of ops cannot overflow the stack.
  const stack: { val: Val; expanded: boolean }[] = [];
  for (let i = fusion.outputs.length - 1; i >= 0; i -= 1) {
    stack.push({ val: fusion.outputs[i] as Val, expanded: false });
  }
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { val: Val; expanded: boolean };
    if (!top.expanded) {
      if (seen.has(top.val)) {
        stack.pop();
        continue;
      }
      seen.add(top.val);
      top.expanded = true;
      const def = top.val.definition;
      if (def !== null && !isIterDomainExpr(def)) {
        for (let i = def.inputs.length - 1; i >= 0; i -= 1) {
          const input = def.inputs[i] as Val;
          if (!seen.has(input)) stack.push({ val: input, expanded: false });
        }
      }
      continue;
    }
    stack.pop();
    if (top.val.kind === 'tensorView') order.push(top.val);
  }
  return order;
}

/** Split/Merge exprs leading from `from` to `to` (IDs of one tensor), each after its inputs' definitions. */
export function idExprsBetween(from: readonly IterDomain[], to: readonly IterDomain[]): Expr[] {
  const start = new Set<Val>(from);
  const seen = new Set<Expr>();
  const order: Expr[] = [];
  const visit = (id: Val): void => {
    if (start.has(id)) return;
    const def = id.definition;
    if (def === null || !isIterDomainExpr(def) || seen.has(def)) return;
    seen.add(def);
    for (const input of def.inputs) visit(input);
    order.push(def);
  };
  for (const id of to) visit(id);
  return order;
}
