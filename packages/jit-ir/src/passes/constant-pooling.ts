// Constant pooling. In: a graph. Out: every prim::Constant (also from nested blocks) hoisted to
// the top of the graph, in first-seen order, with equal constants (same output type and value)
// merged into one.
// Invariant: constants have no inputs, so hoisting them keeps every use dominated. A
// prim::Constant that owns blocks (text can give it some) is left in place: its blocks may use
// values defined before it.

import type { Block } from '../ir/block.js';
import type { Graph } from '../ir/graph.js';
import type { Node } from '../ir/node.js';
import { typesEqual } from '../types/jit-type.js';

function constantsEqual(a: Node, b: Node): boolean {
  return typesEqual(a.output().type, b.output().type) && a.attributesEqual(b);
}

function collectConstants(block: Block, into: Node[]): void {
  for (const n of block.nodes()) {
    if (n.kind === 'prim::Constant' && n.outputs.length === 1 && n.inputs.length === 0 && n.blocks.length === 0) into.push(n);
    for (const b of n.blocks) collectConstants(b, into);
  }
}

/** Returns the number of constants removed as duplicates. */
export function constantPooling(graph: Graph): number {
  const constants: Node[] = [];
  collectConstants(graph.block, constants);
  const kept: Node[] = [];
  let removed = 0;
  let last: Node | null = null;
  for (const n of constants) {
    const existing = kept.find((k) => constantsEqual(k, n));
    if (existing !== undefined) {
      n.output().replaceAllUsesWith(existing.output());
      n.destroy();
      removed++;
      continue;
    }
    if (last === null) {
      const first = graph.block.firstNode();
      if (first !== n && first !== null) n.moveBefore(first);
    } else if (last.next !== n) {
      n.moveAfter(last);
    }
    kept.push(n);
    last = n;
  }
  return removed;
}
