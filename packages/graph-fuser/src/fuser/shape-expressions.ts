// Shape expressions for fusion-group values (legacy buildShapeExpressions /
// removeOutputsUsedOnlyInSize): a group output that the outer graph only asks `aten::size` of need
// not be written to memory — its size is computed outside the group from the sizes of the group's
// inputs (`aten::size`, `prim::BroadcastSizes`, `prim::ReductionSizes`), and the output is removed.
// In: a graph after fusion. Out: the same graph, fewer group outputs; the size expressions sit
// right before their group (unused ones are left for dead-code elimination).
// Invariant: a value's shape expression is only built from nodes whose output shape is known to
// be that rule's (pointwise broadcast, reduction, normalization output 0); any other node leaves
// its outputs without a shape, and their size queries stay as they were.

import { IntType, listType, type Graph, type Node, type Value } from '@tsfuser/jit-ir';
import { isTensorValue } from './fusibility.js';
import { subgraphOf } from './fusion-group.js';

const INT_LIST = listType(IntType);

const REDUCTIONS: ReadonlySet<string> = new Set(['aten::sum', 'aten::mean', 'aten::var', 'aten::std', 'aten::amax', 'aten::amin']);
const SAME_AS_INPUT0: ReadonlySet<string> = new Set([
  'aten::native_layer_norm',
  'aten::layer_norm',
  'aten::native_batch_norm',
  'aten::batch_norm',
  'aten::_batch_norm_impl_index',
  'aten::softmax',
  'aten::_softmax',
  'aten::log_softmax',
  'aten::_log_softmax',
]);
/** Ops whose output shape is not the broadcast of their tensor inputs. */
const SHAPE_CHANGING: ReadonlySet<string> = new Set([
  'aten::reshape',
  'aten::view',
  'aten::permute',
  'aten::t',
  'aten::transpose',
  'aten::squeeze',
  'aten::unsqueeze',
  'aten::expand',
  'aten::expand_as',
  'aten::flatten',
  'aten::linear',
  'aten::native_layer_norm_backward',
  'aten::native_batch_norm_backward',
  'aten::_batch_norm_impl_index_backward',
  'aten::_softmax_backward_data',
  'aten::_log_softmax_backward_data',
]);

function isSizeUse(n: Node): boolean {
  return n.kind === 'aten::size' && n.inputs.length === 1;
}

function usedOnlyInSize(v: Value): boolean {
  return v.uses.length > 0 && v.uses.every((u) => isSizeUse(u.user));
}

function insertSized(graph: Graph, kind: string, inputs: readonly Value[]): Value {
  const n = graph.insertNode(graph.create(kind, inputs, 1));
  return n.output().setType(INT_LIST);
}

/**
 * Builds, before `group`, expressions for the shapes of the subgraph's values; returns the map
 * subgraph value → outer int[] value.
 */
export function buildShapeExpressions(group: Node): Map<Value, Value> {
  const graph = group.owningGraph;
  const subgraph = subgraphOf(group);
  const shapeOf = new Map<Value, Value>();
  graph.withInsertPoint(group, () => {
    group.inputs.forEach((input, i) => {
      if (isTensorValue(input)) shapeOf.set(subgraph.inputs[i] as Value, insertSized(graph, 'aten::size', [input]));
    });
    for (const n of subgraph.nodes()) {
      if (n.kind === 'prim::Constant' || n.outputs.length === 0) continue;
      const first = n.inputs[0];
      const inShape = first === undefined ? undefined : shapeOf.get(first);
      if (REDUCTIONS.has(n.kind)) {
        const dims = n.inputs[1];
        const keep = n.inputs[2];
        if (inShape === undefined || dims === undefined || keep === undefined) continue;
        if (dims.node.kind !== 'prim::Constant' || keep.node.kind !== 'prim::Constant') continue;
        const outerDims = graph.insertNode(graph.createClone(dims.node, () => dims)).output();
        const outerKeep = graph.insertNode(graph.createClone(keep.node, () => keep)).output();
        shapeOf.set(n.output(0), insertSized(graph, 'prim::ReductionSizes', [inShape, outerDims, outerKeep]));
        continue;
      }
      if (SAME_AS_INPUT0.has(n.kind)) {
        if (inShape !== undefined) shapeOf.set(n.output(0), inShape);
        continue;
      }
      if (SHAPE_CHANGING.has(n.kind) || n.outputs.length !== 1) continue;
      const shapes = n.inputs.filter(isTensorValue).map((v) => shapeOf.get(v));
      if (shapes.length === 0 || shapes.some((s) => s === undefined)) continue;
      const known = shapes as Value[];
      shapeOf.set(n.output(), known.length === 1 ? (known[0] as Value) : insertSized(graph, 'prim::BroadcastSizes', known));
    }
  });
  return shapeOf;
}

/** Removes the outputs of `group` that are used only by `aten::size`, answering those from shapes. */
export function removeOutputsUsedOnlyInSize(group: Node): number {
  if (!group.outputs.some(usedOnlyInSize)) return 0;
  const subgraph = subgraphOf(group);
  const shapeOf = buildShapeExpressions(group);
  let removed = 0;
  // Highest index first, so that erasing keeps the lower indices valid.
  for (let i = group.outputs.length - 1; i >= 0; i--) {
    const out = group.output(i);
    const shape = shapeOf.get(subgraph.outputs[i] as Value);
    if (!usedOnlyInSize(out) || shape === undefined) continue;
    for (const u of [...out.uses]) {
      u.user.output().replaceAllUsesWith(shape);
      u.user.destroy();
    }
    group.eraseOutput(i);
    subgraph.eraseOutput(i);
    removed += 1;
  }
  return removed;
}
