// The shape of one row of the op table (op-table.ts): which schemas a lowering accepts, which
// arguments must be compile-time constants, further static checks, and the lowering itself.
// jitOpSupport reads only the static parts, so the fuser can decide fusibility without lowering.

import type { Value } from '@tsfuser/jit-ir';
import type { RngOptions, TensorView } from '@tsfuser/fusion-ir';
import type { NodeArgs, StaticArgs } from './args.js';
import type { JitVal } from './values.js';

/** Services the graph driver gives lowerings. */
export interface LoweringContext {
  /**
   * Records that `update` is the new value of graph input `input` (training batch norm updates its
   * running statistics in place); the driver adds it as an extra fusion output aliased to it.
   */
  recordInputUpdate(update: TensorView, input: Value, what: string): void;
  /**
   * The philox seed and offset of the next random op of this fusion: two Int fusion inputs (added
   * after the graph's inputs on first use, see JitLowering.rng) that the graph runner fills from
   * its generator on every run, the offset plus the op's ordinal so two ops of one fusion draw
   * different numbers (PyTorch's generator state, which tsfuser cannot read, is not used).
   */
  rng(): RngOptions;
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
