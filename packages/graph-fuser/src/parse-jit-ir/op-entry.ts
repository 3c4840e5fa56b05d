// The shape of one row of the op table (op-table.ts): which schemas a lowering accepts, which
// arguments must be compile-time constants, further static checks, and the lowering itself.
// jitOpSupport reads only the static parts, so the fuser can decide fusibility without lowering.

import type { Value } from '@tsfuser/jit-ir';
import type { TensorView } from '@tsfuser/fusion-ir';
import type { NodeArgs, StaticArgs } from './args.js';
import type { JitVal } from './values.js';

/** Services the graph driver gives lowerings. */
export interface LoweringContext {
  /**
   * Records that `update` is the new value of graph input `input` (training batch norm updates its
   * running statistics in place); the driver adds it as an extra fusion output aliased to it.
   */
  recordInputUpdate(update: TensorView, input: Value, what: string): void;
}

export interface JitOpEntry {
  /** PyTorch's declarations this lowering accepts; a node must match one (Node::matches). */
  readonly schemas: readonly string[];
  /** Argument names that must be compile-time constants (see values.ts staticValue). */
  readonly constants?: readonly string[];
  /** Further checks of constant arguments and of output uses: why the node cannot be lowered, or null. */
  readonly check?: (args: StaticArgs) => string | null;
  /** Builds the node's outputs in the fusion, one JitVal per node output. */
  readonly lower: (args: NodeArgs, ctx: LoweringContext) => readonly JitVal[];
}

/** A table section: op kind (`aten::add`) → entry. */
export type OpTableSection = Readonly<Record<string, JitOpEntry>>;
