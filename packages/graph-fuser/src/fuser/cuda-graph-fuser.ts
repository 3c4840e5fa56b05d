// CudaGraphFuser (legacy graph_fuser.cpp): finds fusible regions of one block and wraps each in a
// prim::CudaFusionGroup node whose `Subgraph` attribute holds the fused nodes.
// Algorithm: scan the block's nodes in reverse topological order; for a fusible consumer, try its
// producers (its inputs' nodes, latest first), then siblings that read the same tensor input
// (horizontal fusion); a producer is merged when the fusibility rules (fusibility.ts) allow it,
// it can be moved right before the consumer without breaking data dependencies or crossing a
// side effect / in-place write (moveBeforeTopologicallyValid), and the kernel would not exceed
// the argument limit. After a fusion the new group is scanned again. The whole scan reruns until
// nothing changes. Then each group's subgraph is cleaned (DCE, CSE, constant pooling), outputs
// used only by `aten::size` become shape expressions, and nested blocks get their own fuser.
// Invariant: the graph computes the same values after every step. A consumer only becomes a
// group when a producer or sibling joins it (cleanup inside the group may leave one node), unless
// `singletonFusion` is set (the legacy `_jit_set_nvfuser_single_node_mode(True)`, off by default):
// then every fusible tensor-producing node becomes a group of its own first.

import {
  constantPooling,
  eliminateCommonSubexpression,
  eliminateDeadCode,
  isMutating,
  moveBeforeTopologicallyValid,
  type Block,
  type Node,
  type Value,
} from '@tsfuser/jit-ir';
import { isFusionGroup, isTensorValue, nodeFusibility, producerFusibility, siblingFusibility } from './fusibility.js';
import { createSingletonFusionGroup, exposeAsGroupOutput, mergeFusionGroups, mergeNodeIntoGroup, subgraphOf } from './fusion-group.js';
import { removeOutputsUsedOnlyInSize } from './shape-expressions.js';

/** nvrtc limits the arguments of a kernel; the legacy fuser's safe limit. */
export const NVRTC_KERNEL_ARG_LIMIT = 128;

export interface CudaGraphFuserOptions {
  /** Largest inputs + outputs count of a group (default 128, NVRTC_KERNEL_ARG_LIMIT). */
  argLimit?: number;
  /** Fuse siblings that read the same tensor (default true). */
  horizontalFusion?: boolean;
  /** A fusible node with nothing to fuse becomes a group alone (default false, as the legacy fuser). */
  singletonFusion?: boolean;
}

export class CudaGraphFuser {
  private readonly argLimit: number;
  private readonly horizontalFusion: boolean;
  private readonly singletonFusion: boolean;

  constructor(
    private readonly block: Block,
    options: CudaGraphFuserOptions = {},
  ) {
    this.argLimit = options.argLimit ?? NVRTC_KERNEL_ARG_LIMIT;
    this.horizontalFusion = options.horizontalFusion ?? true;
    this.singletonFusion = options.singletonFusion ?? false;
  }

  private nestedOptions(): CudaGraphFuserOptions {
    return { argLimit: this.argLimit, horizontalFusion: this.horizontalFusion, singletonFusion: this.singletonFusion };
  }

  /** Runs the fuser on the block and, recursively, on the blocks nested in it. */
  run(): void {
    // One pass can miss fusions (f feeds g and h; h, l fuse first and f cannot join them while
    // g still reads it before the group), so rerun until nothing changes.
    let anyChanged = true;
    while (anyChanged) {
      anyChanged = false;
      let cur: Node | null = this.block.lastNode();
      while (cur !== null && cur !== this.block.returnNode) {
        const [next, changed] = this.scanNode(cur);
        anyChanged ||= changed;
        cur = next;
      }
    }
    this.optimizeFusedGraphs();
    for (const n of this.block.nodes()) {
      if (isFusionGroup(n)) removeOutputsUsedOnlyInSize(n);
    }
    for (const n of this.block.nodes()) {
      // A guarded group's fallback branch stays un-fused (fuseGraph on a guarded graph is a no-op there).
      if (isFusionGroup(n) || isVersioningIf(n)) continue;
      for (const b of n.blocks) new CudaGraphFuser(b, this.nestedOptions()).run();
    }
  }

  /** Returns where to continue scanning (the previous node, or the group to rescan) and whether it fused. */
  private scanNode(consumer: Node): [Node | null, boolean] {
    if (!nodeFusibility(consumer).fusible) return [consumer.prev, false];
    if (this.singletonFusion && !isFusionGroup(consumer)) return [createSingletonFusionGroup(consumer), true];
    // Producers latest first: in f(a, a + b), fusing a + b before a avoids seeing a used twice.
    for (const producer of this.sortReverseTopological(consumer.inputs)) {
      const group = this.tryFuse(consumer, producer.node);
      if (group !== null) return [group, true];
      if (!this.horizontalFusion || !isTensorValue(producer) || isCpuScalar(producer)) continue;
      // Siblings after the consumer already tried to take this consumer; look only before it.
      for (const u of [...producer.uses]) {
        const sibling = u.user;
        if (sibling === consumer || sibling.owningBlock !== this.block || !sibling.isBefore(consumer)) continue;
        const merged = this.tryFuse(consumer, sibling, 'sibling');
        if (merged !== null) return [merged, true];
      }
    }
    return [consumer.prev, false];
  }

  private sortReverseTopological(inputs: readonly Value[]): Value[] {
    // Block inputs are kept (they sort last): no producer to fuse, but siblings reading them are.
    const inBlock = [...new Set(inputs)].filter((v) => v.node.owningBlock === this.block);
    return inBlock.sort((a, b) => (a.node === b.node ? 0 : a.node.isAfter(b.node) ? -1 : 1));
  }

  /**
   * Merges `producer` (an input's node, or with `relation` 'sibling' another reader of one of the
   * consumer's inputs) into the group of `consumer` (made one if needed); the group, or null.
   */
  tryFuse(consumer: Node, producer: Node, relation: 'producer' | 'sibling' = 'producer'): Node | null {
    if (producer.owningBlock !== this.block || consumer.owningBlock !== this.block) return null;
    const verdict = relation === 'sibling' ? siblingFusibility(consumer, producer) : producerFusibility(consumer, producer);
    if (!verdict.fusible) return null;
    // Lists and profiled values only join a group that exists: alone with one op they are no fusion.
    if (isHelper(producer) && !isFusionGroup(consumer)) return null;
    if (isSharedHelper(consumer, producer)) return this.cloneHelperInto(consumer, producer);
    // All other uses of the producer must be able to come after the consumer: then moving the
    // producer right before it is valid, and those uses read the group's copy of its outputs.
    if (!moveBeforeTopologicallyValid(producer, consumer)) return null;
    const args = consumer.inputs.length + consumer.outputs.length + producer.inputs.length + producer.outputs.length;
    if (args > this.argLimit) return null;
    const group = isFusionGroup(consumer) ? consumer : createSingletonFusionGroup(consumer);
    if (isFusionGroup(producer)) {
      mergeFusionGroups(group, producer);
      return group;
    }
    const merged = mergeNodeIntoGroup(group, producer);
    producer.outputs.forEach((out, i) => {
      if (out.uses.length > 0) exposeAsGroupOutput(group, merged.output(i), out);
    });
    producer.destroy();
    return group;
  }

  /**
   * A list of constants or a profiled value read by other nodes too: the group gets its own copy
   * (it is cheap and keeps non-tensor values out of the group's outputs).
   */
  private cloneHelperInto(group: Node, helper: Node): Node {
    mergeNodeIntoGroup(group, helper);
    return group;
  }

  private optimizeFusedGraphs(): void {
    for (const n of this.block.nodes()) {
      if (!isFusionGroup(n)) continue;
      const subgraph = subgraphOf(n);
      eliminateDeadCode(subgraph);
      // CSE could return one value for two outputs; if one is then written in place outside,
      // the other would change too (eager PyTorch has two tensors). Skip CSE for such groups.
      if (!n.outputs.some(isWrittenInPlace)) eliminateCommonSubexpression(subgraph);
      constantPooling(subgraph);
    }
  }
}

/** The prim::If that guardFusionGroups puts around a group (true branch: the group alone). */
function isVersioningIf(n: Node): boolean {
  const only = n.blocks[0]?.nodes();
  return n.kind === 'prim::If' && only?.length === 1 && only[0] !== undefined && isFusionGroup(only[0]);
}

function isWrittenInPlace(v: Value): boolean {
  return v.uses.some((u) => u.offset === 0 && isMutating(u.user));
}

function isHelper(n: Node): boolean {
  return n.kind === 'prim::ListConstruct' || n.kind === 'prim::profile_ivalue';
}

function isSharedHelper(consumer: Node, producer: Node): boolean {
  return isHelper(producer) && producer.outputs.some((o) => o.uses.some((u) => u.user !== consumer));
}

/** A 0-dim CPU tensor (a boxed scalar) is passed by value, not read from memory. */
function isCpuScalar(v: Value): boolean {
  const t = v.type;
  return t.kind === 'Tensor' && t.device?.type === 'cpu' && t.sizes !== null && t.sizes.length === 0;
}
