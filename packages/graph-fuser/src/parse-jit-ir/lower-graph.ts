// The driver of parseJitIR: graph inputs → fusion inputs (inputs.ts), each node in order →
// fusion ops through the op table (op-table.ts), graph outputs → fusion outputs, then the
// in-place updates of graph inputs (training batch norm's running stats) as extra outputs.
// Invariants: fusion.outputs[i] is graph output i for i < graph.outputs.length; any node that
// jitOpSupport rejects makes lowering fail with a JitLoweringError naming it — nothing is
// silently dropped; every lowered tensor has the dtype and rank its graph type states.

import type { Graph, Node, Value } from '@tsfuser/jit-ir';
import { add, Fusion, set, type RngOptions, type Scalar, type TensorView, type Val } from '@tsfuser/fusion-ir';
import { NodeArgs } from './args.js';
import { dataTypeOfScalarType } from './dtypes.js';
import { JitLoweringError, nodeError } from './errors.js';
import { lowerGraphInput } from './inputs.js';
import type { LoweringContext } from './op-entry.js';
import { matchAtenOp, primEntry, unsupportedReason } from './op-table.js';
import { describeJitVal, type JitVal } from './values.js';

/** A fusion output that holds the new value of a graph input (aten updates it in place). */
export interface InputUpdate {
  /** Index in fusion.outputs (always ≥ the number of graph outputs). */
  fusionOutput: number;
  /** Index in graph.inputs. */
  graphInput: number;
  /** What is updated, e.g. `running_mean`. */
  what: string;
}

export interface JitLowering {
  fusion: Fusion;
  /** Per graph input, the fusion input it became (null: consumed only through prim::profile_ivalue). */
  inputs: (Val | null)[];
  /** Extra fusion outputs after the graph outputs: in-place updates of graph inputs. */
  inputUpdates: InputUpdate[];
  /**
   * Random ops (training dropout, rand_like …): the fusion's last two inputs are the philox seed
   * and offset (Int), which the runner supplies from its generator, and `draws` ops use offsets
   * offset … offset + draws − 1 (the generator advances by `draws` per run). Null: no random op.
   */
  rng: { draws: number } | null;
}

interface PendingUpdate {
  tv: TensorView;
  graphInput: number;
  what: string;
}

/** Follows prim::profile nodes back to the value they profile. */
function unprofiled(v: Value): Value {
  let cur = v;
  while (cur.node.kind === 'prim::profile') cur = cur.node.input(cur.offset);
  return cur;
}

class GraphLowering {
  readonly fusion = new Fusion();
  private readonly env = new Map<Value, JitVal>();
  readonly updates: PendingUpdate[] = [];
  /** The philox seed and offset inputs, made on the first random op. */
  private rngInputs: { seed: Scalar; offset: Scalar } | null = null;
  rngDraws = 0;

  constructor(private readonly graph: Graph) {}

  lookup = (v: Value): JitVal => {
    const j = this.env.get(v);
    if (j === undefined) throw new JitLoweringError('graph', `value %${v.debugName()} is used before it is defined`);
    return j;
  };

  bind(v: Value, j: JitVal): void {
    this.env.set(v, j);
  }

  private contextFor(node: Node): LoweringContext {
    return {
      recordInputUpdate: (tv, input, what) => {
        const source = unprofiled(input);
        const index = this.graph.inputs.indexOf(source);
        if (index < 0) throw nodeError(node, `${what} is updated in place but is not a graph input (%${input.debugName()})`);
        const laterUse = source.uses.find((u) => u.user !== node && u.user.isAfter(node) && u.user.kind !== 'prim::profile');
        if (laterUse !== undefined) {
          throw nodeError(node, `${what} (%${source.debugName()}) is read after its in-place update, by ${laterUse.user.kind}`);
        }
        this.updates.push({ tv, graphInput: index, what });
      },
      rng: () => this.nextRng(),
    };
  }

  /** Seed and offset (offset + ordinal) for the next random op; makes the two inputs on first use. */
  private nextRng(): RngOptions {
    if (this.rngInputs === null) {
      const seed = this.fusion.newSymbolicScalar('Int');
      const offset = this.fusion.newSymbolicScalar('Int');
      this.fusion.addInput(seed);
      this.fusion.addInput(offset);
      this.rngInputs = { seed, offset };
    }
    const k = this.rngDraws;
    this.rngDraws += 1;
    const offset = k === 0 ? this.rngInputs.offset : add(this.rngInputs.offset, this.fusion.constant(BigInt(k), 'Int'));
    return { rngSeed: this.rngInputs.seed, rngOffset: offset };
  }

  lowerNode(node: Node): void {
    const reason = unsupportedReason(node);
    if (reason !== null) throw nodeError(node, reason);
    let results: readonly JitVal[];
    try {
      const prim = primEntry(node);
      if (prim !== undefined) {
        results = prim.lower({ node, fusion: this.fusion, lookup: this.lookup });
      } else {
        const match = matchAtenOp(node);
        if (match === null) throw nodeError(node, 'internal: no matching schema');
        results = match.entry.lower(new NodeArgs(node, match.schema, this.fusion, this.lookup), this.contextFor(node));
      }
    } catch (e) {
      if (e instanceof JitLoweringError) throw e;
      throw nodeError(node, e instanceof Error ? e.message : String(e));
    }
    if (results.length !== node.outputs.length) {
      throw nodeError(node, `internal: lowering gave ${results.length} values for ${node.outputs.length} outputs`);
    }
    node.outputs.forEach((o, i) => {
      const j = results[i] as JitVal;
      checkOutputType(node, o, j);
      this.bind(o, j);
    });
  }

  /** A graph output as a fusion output; a graph input returned as-is is copied (inputs are not outputs). */
  outputVal(v: Value): Val {
    const j = this.lookup(v);
    switch (j.kind) {
      case 'tensor':
        return this.fusion.inputs.includes(j.tv) ? set(j.tv) : j.tv;
      case 'scalar':
        return j.scalar;
      default:
        throw new JitLoweringError('graph', `output %${v.debugName()} is ${describeJitVal(j)}, which a fusion cannot return`);
    }
  }
}

/** The lowered tensor must have the dtype and rank the graph's type gives the output. */
function checkOutputType(node: Node, o: Value, j: JitVal): void {
  if (j.kind !== 'tensor' || o.type.kind !== 'Tensor') return;
  const t = o.type;
  const dtype = t.scalarType === null ? null : dataTypeOfScalarType(t.scalarType);
  if (dtype !== null && dtype !== j.tv.dtype) {
    throw nodeError(node, `output %${o.debugName()} lowers to ${j.tv.dtype} but the graph types it ${t.scalarType ?? '?'}`);
  }
  if (t.sizes !== null && t.sizes.length !== j.tv.rank()) {
    throw nodeError(node, `output %${o.debugName()} lowers to rank ${j.tv.rank()} but the graph types it rank ${t.sizes.length}`);
  }
}

/** Lowers a graph and reports how its inputs and in-place updates map onto the fusion. */
export function lowerJitGraph(graph: Graph): JitLowering {
  const g = new GraphLowering(graph);
  const inputs = graph.inputs.map((v) => {
    const r = lowerGraphInput(g.fusion, v);
    g.bind(v, r.jit);
    return r.val;
  });
  for (const node of graph.nodes()) g.lowerNode(node);
  for (const v of graph.outputs) g.fusion.addOutput(g.outputVal(v));
  const inputUpdates = g.updates.map((u): InputUpdate => {
    g.fusion.addOutput(u.tv);
    return { fusionOutput: g.fusion.outputs.length - 1, graphInput: u.graphInput, what: u.what };
  });
  return { fusion: g.fusion, inputs, inputUpdates, rng: g.rngDraws === 0 ? null : { draws: g.rngDraws } };
}

/**
 * parseJitIR(graph): the graph (or a prim::CudaFusionGroup's subgraph) as a Fusion — graph inputs
 * are the fusion inputs in order, graph outputs the first fusion outputs; see lowerJitGraph for
 * inputs without a fusion counterpart and for in-place updates (extra trailing outputs).
 * Throws JitLoweringError for anything it cannot lower.
 */
export function parseJitIR(graph: Graph): Fusion {
  return lowerJitGraph(graph).fusion;
}
