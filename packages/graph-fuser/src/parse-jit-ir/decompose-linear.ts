// decomposeLinear(graph): aten::linear(x, w, b) with a bias becomes aten::linear(x, w, None)
// followed by aten::add(out, b, 1), as the legacy fuser's DecomposeOps did: the matrix product
// stays outside fusions, the bias add becomes fusible (and can join the ops after it).
// Invariant: the graph computes the same values; linears without a bias are left alone.

import { type Graph, type Node } from '@tsfuser/jit-ir';

function linearNodes(nodes: readonly Node[]): Node[] {
  const found: Node[] = [];
  for (const n of nodes) {
    if (n.kind === 'aten::linear' && n.inputs.length === 3 && n.input(2).type.kind !== 'None') found.push(n);
    for (const b of n.blocks) found.push(...linearNodes(b.nodes()));
  }
  return found;
}

/** Splits the bias add out of every biased aten::linear; returns how many were split. */
export function decomposeLinear(graph: Graph): number {
  const targets = linearNodes(graph.nodes());
  for (const linear of targets) {
    const bias = linear.input(2);
    graph.withInsertPoint(linear, () => {
      const none = graph.insertConstant({ kind: 'none' });
      linear.replaceInput(2, none);
    });
    graph.withInsertPoint(linear.next ?? linear, () => {
      const one = graph.insertConstant({ kind: 'int', value: 1 });
      const add = graph.create('aten::add', [linear.output(), bias, one]);
      graph.insertNode(add);
      add.output().setType(linear.output().type);
      add.sourceRange = linear.sourceRange;
      linear.output().replaceAllUsesAfterNodeWith(add, add.output());
    });
  }
  return targets.length;
}
