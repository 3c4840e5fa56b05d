// Graph: a TorchScript graph — one top block whose parameters are the graph inputs and whose
// returns are the graph outputs — plus the per-graph unique-name table, the value id counter
// and the insertion point used by insertNode (PyTorch's WithInsertPoint).
// Invariant: debug names are unique within a graph; every value id is unique within a graph.

import { IRError } from '../errors.js';
import { DynamicTensorType, type JitType } from '../types/jit-type.js';
import { Block } from './block.js';
import { createConstantNode, type ConstantValue } from './constants.js';
import { Node } from './node.js';
import type { Value } from './value.js';
import { printGraph, printNode } from '../text/printer.js';

export type ValueMapping = ReadonlyMap<Value, Value> | ((v: Value) => Value);

export class Graph {
  private uniqueCounter = 0;
  private readonly uniqueNames = new Map<string, Value>();
  private readonly nameBaseSuffix = new Map<string, number>();
  readonly block: Block;
  private insertPoint: Node;

  constructor() {
    this.block = new Block(this, null);
    this.insertPoint = this.block.returnNode;
  }

  get inputs(): readonly Value[] {
    return this.block.inputs;
  }
  get outputs(): readonly Value[] {
    return this.block.outputs;
  }
  get paramNode(): Node {
    return this.block.paramNode;
  }
  get returnNode(): Node {
    return this.block.returnNode;
  }
  nodes(): Node[] {
    return this.block.nodes();
  }

  addInput(name?: string, type: JitType = DynamicTensorType): Value {
    return this.block.addInput(name, type);
  }
  insertInput(i: number, name?: string, type: JitType = DynamicTensorType): Value {
    return this.block.insertInput(i, name, type);
  }
  eraseInput(i: number): void {
    this.block.eraseInput(i);
  }
  registerOutput(v: Value): number {
    return this.block.registerOutput(v);
  }
  eraseOutput(i: number): void {
    this.block.eraseOutput(i);
  }

  /** A new node of `kind` (not inserted) using `inputs`, with `numOutputs` Tensor outputs. */
  create(kind: string, inputs: readonly Value[] = [], numOutputs = 1): Node {
    const n = new Node(this, kind);
    for (const v of inputs) n.addInput(v);
    for (let i = 0; i < numOutputs; i++) n.addOutput();
    return n;
  }

  /** A node of `kind` with an empty graph in `attr::Subgraph` (e.g. prim::CudaFusionGroup). */
  createWithSubgraph(kind: string): Node {
    const n = this.create(kind, [], 0);
    n.setG('Subgraph', new Graph());
    return n;
  }

  /**
   * Copies `n` (kind, attributes, output types and names, nested blocks) into this graph, mapping
   * its inputs through `valueMap`. The clone is not inserted.
   */
  createClone(n: Node, valueMap: ValueMapping, copyBlocks = true): Node {
    const lookup = typeof valueMap === 'function' ? valueMap : (v: Value): Value => mapOrThrow(valueMap, v);
    const r = new Node(this, n.kind);
    r.copyAttributes(n);
    r.sourceRange = n.sourceRange;
    for (const o of n.outputs) r.addOutput().copyMetadata(o);
    for (const v of n.inputs) r.addInput(lookup(v));
    if (copyBlocks) {
      // A block may use its own node's outputs (PyTorch's parser allows it): map them to the clone's.
      const inBlocks = (v: Value): Value => (v.node === n ? r.output(v.offset) : lookup(v));
      for (const b of n.blocks) this.cloneBlockInto(b, r.addBlock(), inBlocks);
    }
    return r;
  }

  private cloneBlockInto(from: Block, to: Block, outer: (v: Value) => Value): void {
    const env = new Map<Value, Value>();
    const lookup = (v: Value): Value => env.get(v) ?? outer(v);
    for (const p of from.inputs) env.set(p, to.addInput(undefined, p.type).copyMetadata(p));
    for (const n of from.nodes()) {
      const c = to.appendNode(this.createClone(n, lookup));
      n.outputs.forEach((o, i) => env.set(o, c.output(i)));
    }
    for (const o of from.outputs) to.registerOutput(lookup(o));
  }

  /** A deep copy: same text when printed (names, types, attributes, blocks, subgraphs). */
  copy(): Graph {
    const g = new Graph();
    const env = new Map<Value, Value>();
    for (const i of this.inputs) env.set(i, g.addInput(undefined, i.type).copyMetadata(i));
    for (const n of this.nodes()) {
      const c = g.appendNode(g.createClone(n, (v) => mapOrThrow(env, v)));
      n.outputs.forEach((o, i) => env.set(o, c.output(i)));
    }
    for (const o of this.outputs) g.registerOutput(mapOrThrow(env, o));
    return g;
  }

  // ---- insertion point ----

  /** insertNode puts nodes before `n`; for a block, at its end. */
  setInsertPoint(p: Node | Block): void {
    this.insertPoint = p instanceof Block ? p.returnNode : p;
  }
  getInsertPoint(): Node {
    return this.insertPoint;
  }
  /** Runs `fn` with the insertion point moved to `p`, then restores it. */
  withInsertPoint<T>(p: Node | Block, fn: () => T): T {
    const saved = this.insertPoint;
    this.setInsertPoint(p);
    try {
      return fn();
    } finally {
      this.insertPoint = saved;
    }
  }
  insertNode(n: Node): Node {
    return n.insertBefore(this.insertPoint);
  }
  appendNode(n: Node): Node {
    return this.block.appendNode(n);
  }
  prependNode(n: Node): Node {
    return this.block.prependNode(n);
  }
  /** Creates a prim::Constant for `c` at the insertion point and returns its output. */
  insertConstant(c: ConstantValue): Value {
    return this.insertNode(createConstantNode(this, c)).output();
  }

  // ---- names ----

  /** @internal */
  _nextUnique(): number {
    return this.uniqueCounter++;
  }

  /** @internal */
  _createBlock(owner: Node): Block {
    return new Block(this, owner);
  }

  /** @internal PyTorch's Value::setDebugName. */
  _setDebugName(v: Value, name: string): void {
    if (name !== '' && /^[0-9]+$/.test(name)) throw new IRError(`names may not be integers: ${name}`);
    if (v.hasDebugName()) {
      this.uniqueNames.delete(v._uniqueName);
      v._uniqueName = '';
    }
    if (name === '') return;
    const oldOwner = this.uniqueNames.get(name);
    if (oldOwner !== undefined) {
      let suffix = 1;
      let base = name;
      const dot = name.lastIndexOf('.');
      if (dot >= 0 && dot + 1 < name.length && /^[0-9]+$/.test(name.slice(dot + 1))) {
        suffix = Number(name.slice(dot + 1));
        base = name.slice(0, dot);
      }
      const known = this.nameBaseSuffix.get(base);
      if (known !== undefined) suffix = Math.max(suffix, known + 1);
      let replacement: string;
      do {
        replacement = `${base}.${suffix++}`;
      } while (this.uniqueNames.has(replacement));
      this.nameBaseSuffix.set(base, suffix);
      // The old owner moves to the free `replacement` and `name` is overwritten below, never
      // deleted and set again: V8's Map rehashes over and over under that delete/set pattern
      // (10,000 clones of one named constant took 0.2 s, 40,000 took 1.3 s).
      oldOwner._uniqueName = replacement;
      this.uniqueNames.set(replacement, oldOwner);
    }
    this.uniqueNames.set(name, v);
    v._uniqueName = name;
  }

  /** @internal frees the debug name of a value that leaves the graph. */
  _forgetValue(v: Value): void {
    if (v.hasDebugName() && this.uniqueNames.get(v._uniqueName) === v) this.uniqueNames.delete(v._uniqueName);
  }

  /** The value named `%name` (debug name), if any. */
  findValueByDebugName(name: string): Value | undefined {
    return this.uniqueNames.get(name);
  }

  /** @internal */
  _printNode(n: Node): string {
    return printNode(n);
  }

  toString(): string {
    return printGraph(this);
  }
}

function mapOrThrow(m: ReadonlyMap<Value, Value>, v: Value): Value {
  const r = m.get(v);
  if (r === undefined) throw new IRError(`no mapping for value %${v.debugName()}`);
  return r;
}
