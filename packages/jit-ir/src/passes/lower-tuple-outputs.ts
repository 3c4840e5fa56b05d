// Lower tuple outputs. In: a graph. Out: the same graph where a single graph output built by
// prim::TupleConstruct is replaced by the tuple's elements (PyTorch's LowerAllTuples does this,
// among other things, for a traced function returning several tensors; tuples are not fusion
// values). Invariant: the graph computes the same values; outputs are the tuple's elements in
// order; a graph whose output is not one tuple built in the graph is left as it is.

import type { Graph } from '../ir/graph.js';

/** Returns whether the graph's tuple output was lowered. */
export function lowerTupleOutputs(graph: Graph): boolean {
  if (graph.outputs.length !== 1) return false;
  const tuple = graph.nodes().find((n) => n.kind === 'prim::TupleConstruct' && n.output() === graph.outputs[0]);
  if (tuple === undefined) return false;
  graph.eraseOutput(0);
  for (const v of tuple.inputs) graph.registerOutput(v);
  if (!tuple.hasUses()) tuple.destroy();
  return true;
}
