// Value: an SSA value, produced by exactly one node (graph inputs and block parameters are the
// outputs of their block's prim::Param node), with the list of its uses (user node + input offset).
// Invariant: `v.uses` contains {user, offset} exactly when `user.inputs[offset] === v`.

import { IRError } from '../errors.js';
import type { JitType } from '../types/jit-type.js';
import type { Graph } from './graph.js';
import type { Node } from './node.js';

export interface Use {
  readonly user: Node;
  readonly offset: number;
}

export class Value {
  /** @internal maintained by Node's input operations. */
  readonly _uses: Use[] = [];
  /** @internal set by the graph's name table. */
  _uniqueName = '';

  constructor(
    readonly node: Node,
    /** @internal index in node.outputs; updated when outputs are erased. */
    public _offset: number,
    /** Graph-wide id, printed as the name (`%5`) of a value without a debug name. */
    readonly unique: number,
    public type: JitType,
  ) {}

  get offset(): number {
    return this._offset;
  }
  get uses(): readonly Use[] {
    return this._uses;
  }
  get owningGraph(): Graph {
    return this.node.graph;
  }

  hasUses(): boolean {
    return this._uses.length > 0;
  }

  setType(type: JitType): this {
    this.type = type;
    return this;
  }

  hasDebugName(): boolean {
    return this._uniqueName !== '';
  }

  /** The name printed after `%`: the debug name, or the unique id. */
  debugName(): string {
    return this.hasDebugName() ? this._uniqueName : String(this.unique);
  }

  /**
   * Names the value. As in PyTorch, a name already taken in the graph is moved to the
   * old owner with a fresh `.N` suffix; all-digit names are invalid; '' clears the name.
   */
  setDebugName(name: string): this {
    this.node.graph._setDebugName(this, name);
    return this;
  }

  /** Copies type and debug name from `from` (PyTorch's copyMetadata). */
  copyMetadata(from: Value): this {
    this.setType(from.type);
    if (from.hasDebugName()) this.setDebugName(from.debugName());
    return this;
  }

  /** Makes every user of this value use `newValue` instead. */
  replaceAllUsesWith(newValue: Value): void {
    if (newValue === this) return;
    if (newValue.owningGraph !== this.owningGraph) throw new IRError('replaceAllUsesWith: values belong to different graphs');
    for (const use of [...this._uses]) use.user.replaceInput(use.offset, newValue);
  }

  /** Replaces the uses of this value by nodes that come after `node` (across nested blocks). */
  replaceAllUsesAfterNodeWith(node: Node, newValue: Value): void {
    for (const use of [...this._uses]) {
      if (use.user.isAfter(node)) use.user.replaceInput(use.offset, newValue);
    }
  }

  toString(): string {
    return `%${this.debugName()}`;
  }
}
