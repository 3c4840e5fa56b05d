// Common-subexpression elimination. In: a graph. Out: the same graph where a node equal to an
// earlier node (same kind, same inputs, equal attributes, same output types) is replaced by it.
// Nodes in nested blocks may reuse equal nodes of enclosing blocks that come before them, never
// the other way round. Skipped: nodes with blocks, side effects, mutation, nondeterminism,
// profiling nodes, and nodes holding subgraphs.
// Invariant: every replaced value is replaced by one that dominates all of its uses.

import type { Block } from '../ir/block.js';
import type { Graph } from '../ir/graph.js';
import type { Node } from '../ir/node.js';
import { printAttributeValue } from '../ir/attributes.js';
import { printType, typesEqual } from '../types/index.js';
import { hasSideEffects, isMutating, isNondeterministic } from './side-effects.js';

function isCandidate(n: Node): boolean {
  if (n.blocks.length > 0 || n.outputs.length === 0) return false;
  if (n.kind === 'prim::profile' || n.kind === 'prim::profile_ivalue') return false;
  if (n.hasAttribute('Subgraph')) return false;
  return !hasSideEffects(n) && !isMutating(n) && !isNondeterministic(n);
}

/** A hash key; candidates with equal keys are then compared exactly. */
function nodeKey(n: Node, ids: Map<object, number>): string {
  const id = (o: object): number => {
    let v = ids.get(o);
    if (v === undefined) {
      v = ids.size;
      ids.set(o, v);
    }
    return v;
  };
  const attrs = n.attributeNames().sort().map((k) => {
    const a = n.attribute(k);
    return a === undefined ? k : `${k}=${a.kind}:${printAttributeValue(a)}`;
  });
  return `${n.kind}(${n.inputs.map(id).join(',')})[${attrs.join(',')}]->${n.outputs.map((o) => printType(o.type)).join(',')}`;
}

function nodesEqual(a: Node, b: Node): boolean {
  return (
    a.kind === b.kind &&
    a.inputs.length === b.inputs.length &&
    a.inputs.every((v, i) => v === b.inputs[i]) &&
    a.outputs.length === b.outputs.length &&
    a.outputs.every((o, i) => typesEqual(o.type, b.output(i).type)) &&
    a.attributesEqual(b)
  );
}

class ScopedTable {
  private readonly entries = new Map<string, Node[]>();
  constructor(private readonly parent: ScopedTable | null) {}
  find(key: string, n: Node): Node | null {
    const hit = this.entries.get(key)?.find((m) => nodesEqual(m, n));
    return hit ?? this.parent?.find(key, n) ?? null;
  }
  add(key: string, n: Node): void {
    const list = this.entries.get(key) ?? [];
    list.push(n);
    this.entries.set(key, list);
  }
}

function cseBlock(block: Block, table: ScopedTable, ids: Map<object, number>): number {
  let removed = 0;
  for (const n of block.nodes()) {
    for (const b of n.blocks) removed += cseBlock(b, new ScopedTable(table), ids);
    if (!isCandidate(n)) continue;
    const key = nodeKey(n, ids);
    const existing = table.find(key, n);
    if (existing === null) {
      table.add(key, n);
      continue;
    }
    n.outputs.forEach((o, i) => {
      const keep = existing.output(i);
      if (!keep.hasDebugName() && o.hasDebugName()) {
        const name = o.debugName();
        o.setDebugName('');
        keep.setDebugName(name);
      }
      o.replaceAllUsesWith(keep);
    });
    n.destroy();
    removed++;
  }
  return removed;
}

/** Runs CSE over the graph and its nested blocks; returns the number of nodes removed. */
export function eliminateCommonSubexpression(graph: Graph): number {
  return cseBlock(graph.block, new ScopedTable(null), new Map());
}
