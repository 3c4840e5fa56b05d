// Block: an ordered list of nodes with parameters (outputs of its prim::Param node) and returns
// (inputs of its prim::Return node). The graph has one top block; prim::If and prim::Loop own
// nested ones. The list is circular with the return node as sentinel; each linked node has a
// topological position (sparse integers, re-spread when a gap closes).
// Invariant: walking `next` from the return node visits the nodes in strictly increasing position.

import { IRError } from '../errors.js';
import { DynamicTensorType, type JitType } from '../types/jit-type.js';
import type { Graph } from './graph.js';
import { Node } from './node.js';
import type { Value } from './value.js';

const UPPER = 2 ** 50;
const LOWER = -(2 ** 50);
const INTERVAL = 2 ** 20;

export class Block {
  readonly paramNode: Node;
  readonly returnNode: Node;

  constructor(
    readonly graph: Graph,
    readonly owningNode: Node | null,
  ) {
    this.paramNode = new Node(graph, 'prim::Param');
    this.returnNode = new Node(graph, 'prim::Return');
    this.paramNode._owningBlock = this;
    this.returnNode._owningBlock = this;
    this.paramNode._topoPosition = -Infinity;
    this.returnNode._topoPosition = Infinity;
    this.returnNode._next = this.returnNode;
    this.returnNode._prev = this.returnNode;
  }

  get inputs(): readonly Value[] {
    return this.paramNode.outputs;
  }
  get outputs(): readonly Value[] {
    return this.returnNode.inputs;
  }

  /** A snapshot of the nodes in order (safe to mutate the block while iterating it). */
  nodes(): Node[] {
    const out: Node[] = [];
    for (let n = this.returnNode._next as Node; n !== this.returnNode; n = n._next as Node) out.push(n);
    return out;
  }

  /** First node, or null for an empty block. */
  firstNode(): Node | null {
    const n = this.returnNode._next;
    return n === this.returnNode ? null : n;
  }
  lastNode(): Node | null {
    const n = this.returnNode._prev;
    return n === this.returnNode ? null : n;
  }
  isEmpty(): boolean {
    return this.firstNode() === null;
  }

  addInput(name?: string, type: JitType = DynamicTensorType): Value {
    return this.insertInput(this.inputs.length, name, type);
  }

  insertInput(i: number, name?: string, type: JitType = DynamicTensorType): Value {
    const v = this.paramNode.insertOutput(i, type);
    if (name !== undefined) v.setDebugName(name);
    return v;
  }

  eraseInput(i: number): void {
    this.paramNode.eraseOutput(i);
  }

  registerOutput(v: Value): number {
    this.returnNode.addInput(v);
    return this.outputs.length - 1;
  }

  insertOutput(i: number, v: Value): void {
    this.returnNode.insertInput(i, v);
  }

  eraseOutput(i: number): void {
    this.returnNode.removeInput(i);
  }

  appendNode(n: Node): Node {
    return n.insertBefore(this.returnNode);
  }

  prependNode(n: Node): Node {
    return n.insertAfter(this.paramNode);
  }

  /** @internal links `n` between two adjacent nodes of this block and gives it a position. */
  _link(n: Node, prev: Node, next: Node): void {
    if (prev._next !== next || next._prev !== prev) throw new IRError('internal: link points are not adjacent');
    n._prev = prev;
    n._next = next;
    prev._next = n;
    next._prev = n;
    n._owningBlock = this;
    this.assignPosition(n);
  }

  /** @internal */
  _unlink(n: Node): void {
    const prev = n._prev;
    const next = n._next;
    if (prev === null || next === null) throw new IRError('internal: unlinking a node that is not linked');
    prev._next = next;
    next._prev = prev;
    n._prev = null;
    n._next = null;
  }

  private assignPosition(n: Node): void {
    const prev = n._prev as Node;
    const next = n._next as Node;
    const prevIsStart = prev === this.returnNode;
    const nextIsEnd = next === this.returnNode;
    if (prevIsStart && nextIsEnd) {
      n._topoPosition = 0;
    } else if (nextIsEnd) {
      if (prev._topoPosition >= UPPER - INTERVAL) this.reindex();
      else n._topoPosition = prev._topoPosition + INTERVAL;
    } else if (prevIsStart) {
      if (next._topoPosition <= LOWER + INTERVAL) this.reindex();
      else n._topoPosition = next._topoPosition - INTERVAL;
    } else {
      const gap = next._topoPosition - prev._topoPosition;
      if (gap <= 1) this.reindex();
      else n._topoPosition = prev._topoPosition + Math.floor(gap / 2);
    }
  }

  /** Spreads positions evenly; called when no integer is left between two neighbours. */
  private reindex(): void {
    let pos = 0;
    for (const n of this.nodes()) {
      n._topoPosition = pos;
      pos += INTERVAL;
    }
  }

  /** @internal destroys every node (last first), then the parameter values. */
  _destroy(): void {
    this.returnNode.removeAllInputs();
    for (const n of this.nodes().reverse()) {
      for (const o of n.outputs) {
        // Uses from later nodes of this block were removed already; remaining uses come from
        // outside the block and make the graph invalid, so refuse.
        if (o.hasUses()) throw new IRError(`cannot destroy block: %${o.debugName()} is still used by ${o.uses[0]?.user.kind ?? '?'}`);
      }
      n.destroy();
    }
    for (const p of this.inputs) this.graph._forgetValue(p);
  }
}
