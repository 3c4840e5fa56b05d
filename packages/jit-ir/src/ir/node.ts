// Node: one operation in a block's ordered node list — a kind (`aten::add`), inputs, outputs,
// attributes and nested blocks (prim::If / prim::Loop). Nodes sit in a doubly linked list whose
// sentinel is the block's prim::Return node; each carries a topological position so that
// isBefore/isAfter are O(depth).
// Invariants: an input's `uses` lists this node at that offset; a node in a list has an
// owningBlock; a destroyed node is in no list and uses nothing.

import { IRError } from '../errors.js';
import type { JitType } from '../types/jit-type.js';
import { DynamicTensorType } from '../types/jit-type.js';
import { attributeValuesEqual, type AttributeValue, type TensorLiteral } from './attributes.js';
import type { Block } from './block.js';
import type { Graph } from './graph.js';
import { Value, type Use } from './value.js';
import type { FunctionSchema } from '../schema/function-schema.js';
import { findMatchingSchema, nodeMatchesSchema } from '../schema/matching.js';
import { hasSideEffects } from '../passes/side-effects.js';

/** Attribute names are stored without the `attr::` prefix; both spellings are accepted. */
export function attributeKey(name: string): string {
  return name.startsWith('attr::') ? name.slice('attr::'.length) : name;
}

/** The blocks of a node that has none (shared, never written). */
const NO_BLOCKS: readonly Block[] = Object.freeze([]);

export class Node {
  private readonly _inputs: Value[] = [];
  private readonly _outputs: Value[] = [];
  /** Blocks and attributes are made on first write: most nodes have none, and a 20,000-node
   * graph (three copies of it under `fuse --check`) would otherwise hold 120,000 empty ones. */
  private _blocks: Block[] | null = null;
  private _attributes: Map<string, AttributeValue> | null = null;
  /** @internal linked-list and ordering state, owned by Block. */
  _prev: Node | null = null;
  /** @internal */
  _next: Node | null = null;
  /** @internal */
  _topoPosition = 0;
  /** @internal */
  _owningBlock: Block | null = null;
  /** Source location comment (`file.py:12:3`) printed after the node, or null. */
  sourceRange: string | null = null;
  private destroyed = false;

  constructor(
    readonly graph: Graph,
    private _kind: string,
  ) {}

  get kind(): string {
    return this._kind;
  }
  /** @internal used by the parser to resolve `prim::CudaFusionGroup_0` references. */
  _setKind(kind: string): void {
    this._kind = kind;
  }
  get inputs(): readonly Value[] {
    return this._inputs;
  }
  get outputs(): readonly Value[] {
    return this._outputs;
  }
  get blocks(): readonly Block[] {
    return this._blocks ?? NO_BLOCKS;
  }
  get owningBlock(): Block | null {
    return this._owningBlock;
  }
  get owningGraph(): Graph {
    return this.graph;
  }
  /** The next node in the block; the block's return node after the last one. */
  get next(): Node | null {
    return this._next;
  }
  get prev(): Node | null {
    return this._prev;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  /** True while the node is linked into a block's node list. */
  inBlockList(): boolean {
    return this._next !== null;
  }

  /** `input()` requires exactly one input; `input(i)` indexes. */
  input(i?: number): Value {
    return this.pick(this._inputs, i, 'input');
  }
  output(i?: number): Value {
    return this.pick(this._outputs, i, 'output');
  }
  private pick(list: readonly Value[], i: number | undefined, what: string): Value {
    if (i === undefined) {
      const [only] = list;
      if (only === undefined || list.length !== 1) throw new IRError(`${this.kind} has ${list.length} ${what}s, expected exactly one`);
      return only;
    }
    const v = list[i];
    if (v === undefined) throw new IRError(`${this.kind} has no ${what} ${i} (it has ${list.length})`);
    return v;
  }

  // ---- inputs ----

  addInput(v: Value): Value {
    return this.insertInput(this._inputs.length, v);
  }

  insertInput(i: number, v: Value): Value {
    this.checkAlive();
    if (i < 0 || i > this._inputs.length) throw new IRError(`insertInput: index ${i} out of range`);
    if (v.owningGraph !== this.graph) throw new IRError('insertInput: value belongs to another graph');
    for (let j = i; j < this._inputs.length; j++) this.shiftUse(j, j + 1);
    this._inputs.splice(i, 0, v);
    v._uses.push({ user: this, offset: i });
    return v;
  }

  /** Replaces input `i` with `newValue` and returns the old value. */
  replaceInput(i: number, newValue: Value): Value {
    const old = this.input(i);
    if (newValue.owningGraph !== this.graph) throw new IRError('replaceInput: value belongs to another graph');
    this.dropUse(i);
    this._inputs[i] = newValue;
    newValue._uses.push({ user: this, offset: i });
    return old;
  }

  /** Replaces every occurrence of `from` among the inputs with `to`. */
  replaceInputWith(from: Value, to: Value): void {
    this._inputs.forEach((v, i) => {
      if (v === from) this.replaceInput(i, to);
    });
  }

  removeInput(i: number): void {
    this.input(i);
    this.dropUse(i);
    for (let j = i + 1; j < this._inputs.length; j++) this.shiftUse(j, j - 1);
    this._inputs.splice(i, 1);
  }

  removeAllInputs(): void {
    for (let i = 0; i < this._inputs.length; i++) this.dropUse(i);
    this._inputs.length = 0;
  }

  /**
   * Where this node's use of input `i` sits in the input's use list, searched from the end: the
   * passes destroy and rewire the latest users first (the graph fuser walks backwards), so a value
   * with n users costs O(1) per call there instead of O(n) — O(n²) for a long chain.
   */
  private useIndex(v: Value, i: number): number {
    for (let k = v._uses.length - 1; k >= 0; k--) {
      const u = v._uses[k] as Use;
      if (u.user === this && u.offset === i) return k;
    }
    return -1;
  }

  private dropUse(i: number): void {
    const v = this.input(i);
    const at = this.useIndex(v, i);
    if (at < 0) throw new IRError(`internal: use of %${v.debugName()} by ${this.kind} at ${i} is missing`);
    v._uses.splice(at, 1);
  }

  private shiftUse(from: number, to: number): void {
    const v = this.input(from);
    const at = this.useIndex(v, from);
    if (at < 0) throw new IRError(`internal: use of %${v.debugName()} by ${this.kind} at ${from} is missing`);
    v._uses[at] = { user: this, offset: to };
  }

  // ---- outputs ----

  addOutput(type: JitType = DynamicTensorType): Value {
    return this.insertOutput(this._outputs.length, type);
  }

  insertOutput(i: number, type: JitType = DynamicTensorType): Value {
    this.checkAlive();
    if (i < 0 || i > this._outputs.length) throw new IRError(`insertOutput: index ${i} out of range`);
    const v = new Value(this, i, this.graph._nextUnique(), type);
    if (i === this._outputs.length) {
      // Appending (the parser's case) renumbers nothing, keeping graph building linear.
      this._outputs.push(v);
      return v;
    }
    this._outputs.splice(i, 0, v);
    for (let j = i + 1; j < this._outputs.length; j++) (this._outputs[j] as Value)._offset = j;
    return v;
  }

  /** Removes output `i`; it must have no uses. */
  eraseOutput(i: number): void {
    const v = this.output(i);
    if (v.hasUses()) throw new IRError(`cannot erase output %${v.debugName()} of ${this.kind}: it still has ${v.uses.length} use(s)`);
    this.graph._forgetValue(v);
    this._outputs.splice(i, 1);
    for (let j = i; j < this._outputs.length; j++) (this._outputs[j] as Value)._offset = j;
  }

  /** Makes users of each output use the corresponding output of `other`. */
  replaceAllUsesWith(other: Node): void {
    if (other.outputs.length !== this._outputs.length) throw new IRError('replaceAllUsesWith: nodes have different output counts');
    this._outputs.forEach((o, i) => o.replaceAllUsesWith(other.output(i)));
  }

  hasUses(): boolean {
    return this._outputs.some((o) => o.hasUses());
  }

  // ---- blocks ----

  addBlock(): Block {
    this.checkAlive();
    const b = this.graph._createBlock(this);
    (this._blocks ??= []).push(b);
    return b;
  }

  eraseBlock(i: number): void {
    const b = this._blocks?.[i];
    if (b === undefined) throw new IRError(`${this.kind} has no block ${i}`);
    b._destroy();
    this._blocks?.splice(i, 1);
  }

  // ---- attributes ----

  hasAttribute(name: string): boolean {
    return this._attributes?.has(attributeKey(name)) ?? false;
  }
  hasAttributes(): boolean {
    return (this._attributes?.size ?? 0) > 0;
  }
  attributeNames(): string[] {
    return this._attributes === null ? [] : [...this._attributes.keys()];
  }
  attribute(name: string): AttributeValue | undefined {
    return this._attributes?.get(attributeKey(name));
  }
  setAttribute(name: string, value: AttributeValue): this {
    (this._attributes ??= new Map()).set(attributeKey(name), value);
    return this;
  }
  removeAttribute(name: string): this {
    this._attributes?.delete(attributeKey(name));
    return this;
  }
  copyAttributes(from: Node): this {
    this._attributes?.clear();
    for (const [k, v] of from._attributes ?? []) this.setAttribute(k, v.kind === 'g' ? { kind: 'g', value: v.value.copy() } : v);
    return this;
  }
  attributesEqual(other: Node): boolean {
    if ((this._attributes?.size ?? 0) !== (other._attributes?.size ?? 0)) return false;
    for (const [k, v] of this._attributes ?? []) {
      const w = other._attributes?.get(k);
      if (w === undefined || !attributeValuesEqual(v, w)) return false;
    }
    return true;
  }

  private attr<K extends AttributeValue['kind']>(name: string, kind: K): Extract<AttributeValue, { kind: K }> {
    const a = this.attribute(name);
    if (a === undefined) throw new IRError(`${this.kind} has no attribute '${attributeKey(name)}'`);
    if (a.kind !== kind) throw new IRError(`attribute '${attributeKey(name)}' of ${this.kind} is of kind '${a.kind}', not '${kind}'`);
    return a as Extract<AttributeValue, { kind: K }>;
  }
  i(name: string): number {
    return Number(this.attr(name, 'i').value);
  }
  f(name: string): number {
    return this.attr(name, 'f').value;
  }
  s(name: string): string {
    return this.attr(name, 's').value;
  }
  is(name: string): number[] {
    return this.attr(name, 'is').value.map(Number);
  }
  fs(name: string): readonly number[] {
    return this.attr(name, 'fs').value;
  }
  ss(name: string): readonly string[] {
    return this.attr(name, 'ss').value;
  }
  t(name: string): TensorLiteral {
    return this.attr(name, 't').value;
  }
  ty(name: string): JitType {
    return this.attr(name, 'ty').value;
  }
  tys(name: string): readonly JitType[] {
    return this.attr(name, 'tys').value;
  }
  g(name: string): Graph {
    return this.attr(name, 'g').value;
  }
  setI(name: string, v: number | bigint): this {
    return this.setAttribute(name, { kind: 'i', value: BigInt(v) });
  }
  setF(name: string, v: number): this {
    return this.setAttribute(name, { kind: 'f', value: v });
  }
  setS(name: string, v: string): this {
    return this.setAttribute(name, { kind: 's', value: v });
  }
  setIs(name: string, v: readonly (number | bigint)[]): this {
    return this.setAttribute(name, { kind: 'is', value: v.map((x) => BigInt(x)) });
  }
  setFs(name: string, v: readonly number[]): this {
    return this.setAttribute(name, { kind: 'fs', value: [...v] });
  }
  setSs(name: string, v: readonly string[]): this {
    return this.setAttribute(name, { kind: 'ss', value: [...v] });
  }
  setT(name: string, v: TensorLiteral): this {
    return this.setAttribute(name, { kind: 't', value: v });
  }
  setTy(name: string, v: JitType): this {
    return this.setAttribute(name, { kind: 'ty', value: v });
  }
  setTys(name: string, v: readonly JitType[]): this {
    return this.setAttribute(name, { kind: 'tys', value: [...v] });
  }
  setG(name: string, v: Graph): this {
    return this.setAttribute(name, { kind: 'g', value: v });
  }

  // ---- position in the block ----

  /** Inserts this (unlinked) node right before `n`. */
  insertBefore(n: Node): this {
    const block = this.linkTarget(n);
    if (n === block.paramNode) throw new IRError("cannot insert before a block's parameter node");
    // n is linked (checked by linkTarget), so its prev pointer is set.
    block._link(this, n._prev as Node, n);
    return this;
  }

  /** Inserts this (unlinked) node right after `n` (after a prim::Param: first in the block). */
  insertAfter(n: Node): this {
    const block = this.linkTarget(n);
    if (n === block.returnNode) throw new IRError("cannot insert after a block's return node");
    // After the parameter node means first in the list: right after the return-node sentinel.
    if (n === block.paramNode) block._link(this, block.returnNode, block.returnNode._next as Node);
    else block._link(this, n, n._next as Node);
    return this;
  }

  private linkTarget(n: Node): Block {
    this.checkAlive();
    if (this.inBlockList()) throw new IRError(`${this.kind} is already in a block; use moveBefore/moveAfter`);
    if (n.graph !== this.graph) throw new IRError('cannot insert a node next to a node of another graph');
    const block = n._owningBlock;
    if (block === null || (!n.inBlockList() && n !== block.paramNode)) throw new IRError(`${n.kind} is not in a block`);
    if (this.isAncestorOf(block)) throw new IRError(`cannot insert ${this.kind} into one of its own blocks`);
    return block;
  }

  private isAncestorOf(block: Block): boolean {
    for (let b: Block | null = block; b !== null; b = b.owningNode?._owningBlock ?? null) {
      if (b.owningNode === this) return true;
    }
    return false;
  }

  moveBefore(n: Node): this {
    if (n === this) return this;
    this.removeFromList();
    return this.insertBefore(n);
  }

  moveAfter(n: Node): this {
    if (n === this) return this;
    this.removeFromList();
    return this.insertAfter(n);
  }

  /** Unlinks the node from its block, keeping inputs and outputs. */
  removeFromList(): void {
    if (!this.inBlockList()) throw new IRError(`${this.kind} is not in a block list`);
    (this._owningBlock as Block)._unlink(this);
  }

  isBefore(n: Node): boolean {
    return this.isBeforeOrAfter(n, true);
  }
  isAfter(n: Node): boolean {
    return this.isBeforeOrAfter(n, false);
  }

  /** PyTorch's Node::isBeforeOrAfter: climb both block chains to the first common block. */
  private isBeforeOrAfter(n: Node, before: boolean): boolean {
    if (this === n) return false;
    if (this._owningBlock === n._owningBlock) {
      return before ? this._topoPosition < n._topoPosition : this._topoPosition > n._topoPosition;
    }
    for (const lhs of this.ancestry()) {
      for (const rhs of n.ancestry()) {
        if (lhs._owningBlock !== null && lhs._owningBlock === rhs._owningBlock) {
          return lhs === rhs ? false : lhs.isBeforeOrAfter(rhs, before);
        }
      }
    }
    throw new IRError(`${this.kind} and ${n.kind} are not in the same graph`);
  }

  /** The ancestor of this node (or itself) that lives directly in `block`, or null. */
  findAncestorInBlock(block: Block): Node | null {
    return this.ancestry().find((n) => n._owningBlock === block) ?? null;
  }

  /** This node, then the nodes owning the blocks it is nested in, innermost first. */
  ancestry(): Node[] {
    const chain: Node[] = [this];
    for (;;) {
      const up = chain[chain.length - 1]?._owningBlock?.owningNode ?? null;
      if (up === null) return chain;
      chain.push(up);
    }
  }

  /** Removes the node from the graph. Outputs must be unused; nested blocks are destroyed too. */
  destroy(): void {
    this.checkAlive();
    for (const o of this._outputs) {
      if (o.hasUses()) {
        const users = o.uses.map((u) => u.user.kind).join(', ');
        throw new IRError(`cannot destroy ${this.kind}: output %${o.debugName()} is still used by ${users}`);
      }
    }
    for (const b of [...(this._blocks ?? [])].reverse()) b._destroy();
    this._blocks = null;
    this.removeAllInputs();
    if (this.inBlockList()) this.removeFromList();
    for (const o of this._outputs) this.graph._forgetValue(o);
    this.destroyed = true;
  }

  private checkAlive(): void {
    if (this.destroyed) throw new IRError(`${this.kind} was destroyed`);
  }

  // ---- schemas and effects ----

  /** PyTorch's Node::matches: same qualified name and every input a subtype of its formal. */
  matches(schema: string | FunctionSchema): boolean {
    return nodeMatchesSchema(this, schema);
  }

  /** The first schema of the built-in table that this node matches, or null. */
  schema(): FunctionSchema | null {
    return findMatchingSchema(this);
  }

  hasSideEffects(): boolean {
    return hasSideEffects(this);
  }

  toString(): string {
    return this.graph._printNode(this);
  }
}
