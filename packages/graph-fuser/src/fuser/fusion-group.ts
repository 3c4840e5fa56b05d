// The mechanics of prim::CudaFusionGroup nodes (legacy graph_fuser.cpp): put a producer node into
// a consumer's group, turn a node into a one-node group, and merge two groups.
// Invariants kept by every function here:
//   - group.inputs[i] (outer value) corresponds to subgraph.inputs[i], group.outputs[i] to
//     subgraph.outputs[i]; tensor inputs come before the other inputs (a legacy convention);
//   - constants read by a merged node are cloned into the subgraph, never passed as inputs;
//   - the outer graph stays valid: every use of a merged node's output is rewired to the group.

import { type Graph, type Node, type Value } from '@tsfuser/jit-ir';
import { CUDA_FUSION_GROUP, isTensorValue } from './fusibility.js';

export function subgraphOf(group: Node): Graph {
  return group.g('Subgraph');
}

/** The subgraph value that stands for outer `input` when a node reading it is merged in. */
function groupInputFor(group: Node, input: Value, inputsMap: Map<Value, Value>, tensorInsertIndex: { i: number }): Value {
  const subgraph = subgraphOf(group);
  if (input.node.kind === 'prim::Constant') {
    // Inline constants into the body of the group.
    const c = subgraph.insertNode(subgraph.createClone(input.node, () => {
      throw new Error(`constant %${input.debugName()} has inputs`);
    }));
    return c.output();
  }
  if (isTensorValue(input)) {
    const inner = subgraph.insertInput(tensorInsertIndex.i, undefined, input.type);
    group.insertInput(tensorInsertIndex.i, input);
    tensorInsertIndex.i += 1;
    return inner;
  }
  const inner = subgraph.addInput(undefined, input.type);
  group.addInput(input);
  return inner;
}

/**
 * Inserts producer `n` (not a group) into `group`, mapping its inputs to group inputs (added as
 * needed) and its outputs, where they were group inputs, to the merged node. Does not work when
 * `n` consumes an output of the group. Returns the node inside the subgraph.
 */
export function mergeNodeIntoGroup(group: Node, n: Node): Node {
  if (n.kind === CUDA_FUSION_GROUP) throw new Error('mergeNodeIntoGroup: use mergeFusionGroups for groups');
  const subgraph = subgraphOf(group);
  const inputsMap = new Map<Value, Value>();
  const tensorInsertIndex = { i: 0 };
  group.inputs.forEach((input, i) => {
    inputsMap.set(input, subgraph.inputs[i] as Value);
    if (isTensorValue(input)) tensorInsertIndex.i = i + 1;
  });
  const first = subgraph.block.firstNode() ?? subgraph.returnNode;
  return subgraph.withInsertPoint(first, () => {
    for (const input of n.inputs) {
      if (!inputsMap.has(input)) inputsMap.set(input, groupInputFor(group, input, inputsMap, tensorInsertIndex));
    }
    const inGraph = subgraph.createClone(n, (v) => {
      const m = inputsMap.get(v);
      if (m === undefined) throw new Error(`mergeNodeIntoGroup: %${v.debugName()} unmapped`);
      return m;
    });
    // x = f(w); group(x, y) becomes group(w, y): outputs of n that were group inputs are now
    // computed inside.
    n.outputs.forEach((out, i) => {
      const p = group.inputs.indexOf(out);
      if (p < 0) return;
      group.removeInput(p);
      (subgraph.inputs[p] as Value).replaceAllUsesWith(inGraph.output(i));
      subgraph.eraseInput(p);
    });
    return subgraph.insertNode(inGraph);
  });
}

/** Replaces `n` by a group holding only `n`; every use of n's outputs now reads the group's. */
export function createSingletonFusionGroup(n: Node): Node {
  const graph = n.owningGraph;
  const group = graph.createWithSubgraph(CUDA_FUSION_GROUP);
  group.insertBefore(n);
  const merged = mergeNodeIntoGroup(group, n);
  n.outputs.forEach((out, i) => {
    subgraphOf(group).registerOutput(merged.output(i));
    group.addOutput(out.type).copyMetadata(out);
  });
  n.replaceAllUsesWith(group);
  n.destroy();
  return group;
}

/**
 * Registers `inner` (a value of the subgraph) as a new output of `group` that replaces every
 * remaining use of outer `value`.
 */
export function exposeAsGroupOutput(group: Node, inner: Value, value: Value): void {
  subgraphOf(group).registerOutput(inner);
  const out = group.addOutput(value.type);
  out.copyMetadata(value);
  value.replaceAllUsesWith(out);
}

/**
 * Merges `producerGroup` into `consumerGroup`: the producer's body is unpacked into the outer
 * graph right before it, then each unpacked node is merged into the consumer, last first;
 * values still used outside become outputs of the consumer group.
 */
export function mergeFusionGroups(consumerGroup: Node, producerGroup: Node): void {
  const block = producerGroup.owningGraph;
  const producerSubgraph = subgraphOf(producerGroup);
  const innerToOuter = new Map<Value, Value>();
  producerSubgraph.inputs.forEach((v, i) => innerToOuter.set(v, producerGroup.input(i)));
  const temporary: Node[] = [];
  for (const inner of producerSubgraph.nodes()) {
    const outer = block.createClone(inner, (k) => {
      const m = innerToOuter.get(k);
      if (m === undefined) throw new Error(`mergeFusionGroups: %${k.debugName()} unmapped`);
      return m;
    });
    outer.insertBefore(producerGroup);
    temporary.push(outer);
    inner.outputs.forEach((o, i) => innerToOuter.set(o, outer.output(i)));
  }
  producerSubgraph.outputs.forEach((o, i) => {
    const outer = innerToOuter.get(o);
    if (outer === undefined) throw new Error('mergeFusionGroups: unmapped output');
    producerGroup.output(i).replaceAllUsesWith(outer);
  });
  producerGroup.destroy();
  for (const node of [...temporary].reverse()) {
    const merged = mergeNodeIntoGroup(consumerGroup, node);
    node.outputs.forEach((out, i) => {
      if (out.uses.length > 0) exposeAsGroupOutput(consumerGroup, merged.output(i), out);
    });
    node.destroy();
  }
}
