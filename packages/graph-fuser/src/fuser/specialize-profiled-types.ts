// removeProfileNodesAndSpecializeTypes (PyTorch's RemoveProfileNodesAndSpecializeTypes, as the
// legacy fuser runs it first): every `prim::profile` node is removed and the value it profiled
// takes the recorded `profiled_type`, so the fuser and the guards see complete tensor types.
// `prim::profile_ivalue` nodes stay: the fuser merges them into groups and the guard checks them.
// Invariant: the graph computes the same values; only types are refined.

import type { Block, Graph } from '@tsfuser/jit-ir';

function specializeBlock(block: Block): number {
  let removed = 0;
  for (const n of block.nodes()) {
    for (const b of n.blocks) removed += specializeBlock(b);
    if (n.kind !== 'prim::profile') continue;
    const profiled = n.attribute('profiled_type');
    n.inputs.forEach((input, i) => {
      if (profiled?.kind === 'ty' && profiled.value.kind === 'Tensor') input.setType(profiled.value);
      n.output(i).replaceAllUsesWith(input);
    });
    n.destroy();
    removed += 1;
  }
  return removed;
}

/** Removes prim::profile nodes, specializing the profiled values' types; returns the count. */
export function removeProfileNodesAndSpecializeTypes(graph: Graph): number {
  return specializeBlock(graph.block);
}
