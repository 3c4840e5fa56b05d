// simplifySizeArithmetic(graph): rewrites the size chains PyTorch's tracer and scripting emit
// into the one form the fuser and parseJitIR read, before fusion:
//   - traced:   aten::Int(prim::NumToTensor(%n))            → %n
//   - scripted: aten::__getitem__(aten::size(%t), <const d>) → aten::size(%t, d)
//   - scripted: aten::len(aten::size(%t)) with %t of known rank → constant rank
// so `layer_norm(x, [x.shape[-1]])` reads `prim::ListConstruct(aten::size(%x, -1))` in both.
// Nodes left unused are removed by the dead-code pass that follows.
// Invariant: the graph computes the same values; only these exact patterns are touched. An index
// outside a known rank is left alone (the list's "list index out of range" stays the error), and
// aten::Int(NumToTensor(%n)) is folded only for an int %n (a float's Int truncates, and checks).

import { constantValue, type Block, type Graph, type Node } from '@tsfuser/jit-ir';

function constantInt(n: Node | undefined): number | null {
  if (n === undefined || n.kind !== 'prim::Constant') return null;
  const c = constantValue(n);
  return c?.kind === 'int' ? Number(c.value) : null;
}

/** aten::size(%t) with no dim (the int[] overload). */
function isWholeSize(n: Node): boolean {
  return n.kind === 'aten::size' && n.inputs.length === 1;
}

function rewriteNode(graph: Graph, n: Node): boolean {
  if (n.kind === 'aten::Int' && n.inputs.length === 1 && n.input(0).node.kind === 'prim::NumToTensor' && n.input(0).node.input(0).type.kind === 'Int') {
    n.output().replaceAllUsesWith(n.input(0).node.input(0));
    return true;
  }
  if (n.kind === 'aten::__getitem__' && n.inputs.length === 2 && isWholeSize(n.input(0).node)) {
    const dim = constantInt(n.input(1).node);
    if (dim === null) return false;
    const tensor = n.input(0).node.input(0);
    const rank = tensor.type.kind === 'Tensor' && tensor.type.sizes !== null ? tensor.type.sizes.length : null;
    if (rank !== null && (dim < -rank || dim >= rank)) return false;
    graph.withInsertPoint(n, () => {
      const size = graph.create('aten::size', [tensor, n.input(1)]);
      graph.insertNode(size);
      size.output().setType(n.output().type);
      size.sourceRange = n.sourceRange;
      n.output().replaceAllUsesWith(size.output());
    });
    return true;
  }
  if (n.kind === 'aten::len' && n.inputs.length === 1 && isWholeSize(n.input(0).node)) {
    const t = n.input(0).node.input(0).type;
    if (t.kind !== 'Tensor' || t.sizes === null) return false;
    const rank = t.sizes.length;
    graph.withInsertPoint(n, () => n.output().replaceAllUsesWith(graph.insertConstant({ kind: 'int', value: BigInt(rank) })));
    return true;
  }
  return false;
}

function visit(graph: Graph, block: Block): number {
  let count = 0;
  for (const n of block.nodes()) {
    for (const b of n.blocks) count += visit(graph, b);
    if (rewriteNode(graph, n)) count += 1;
  }
  return count;
}

/** Rewrites the size chains above in every block; returns how many nodes were rewritten. */
export function simplifySizeArithmetic(graph: Graph): number {
  return visit(graph, graph.block);
}
