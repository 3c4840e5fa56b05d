// Dead-code elimination. In: a graph. Out: the same graph without nodes whose outputs are unused.
// Kept conservatively: nodes with side effects (prim::Print, ...), in-place (mutating) nodes,
// and nodes that own blocks (prim::If / prim::Loop), whose block bodies are still cleaned.
// Invariant: graph outputs, block outputs and every kept node's inputs stay defined.

import type { Block } from '../ir/block.js';
import type { Graph } from '../ir/graph.js';
import type { Node } from '../ir/node.js';
import { hasSideEffects, isMutating } from './side-effects.js';

function mustKeep(n: Node): boolean {
  return n.blocks.length > 0 || hasSideEffects(n) || isMutating(n) || n.hasUses();
}

/** Removes dead nodes from `block` (walking backwards so chains die in one sweep). Returns the count. */
function eliminateInBlock(block: Block): number {
  let removed = 0;
  for (const n of block.nodes().reverse()) {
    if (mustKeep(n)) {
      for (const b of n.blocks) removed += eliminateInBlock(b);
      continue;
    }
    n.destroy();
    removed++;
  }
  return removed;
}

/** Runs DCE over the graph and its nested blocks; returns the number of nodes removed. */
export function eliminateDeadCode(graph: Graph): number {
  let total = 0;
  // A dead node inside a block can make an outer node dead only through its inputs; a second
  // sweep picks those up. Iterate to a fixed point.
  for (;;) {
    const removed = eliminateInBlock(graph.block);
    total += removed;
    if (removed === 0) return total;
  }
}
