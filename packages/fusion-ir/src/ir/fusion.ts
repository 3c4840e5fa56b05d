// Fusion: the container of one computation — all of its Vals and Exprs, its inputs and outputs.
// There is no "current fusion": ops find the fusion through their operands, and every factory
// method is called on an explicit Fusion.
//
// Invariants: each Val has at most one definition; `uses` lists exactly the registered Exprs
// that read the Val; names are unique per category (tensors, IterDomains, scalars, exprs).

import { cloneFusion, type FusionClone } from './clone.js';
import { isComplexType, type DataType } from './data-type.js';
import { FusionIrError } from './errors.js';
import { isIterDomainExpr, type Expr } from './expr.js';
import { IterDomain } from './iter-domain.js';
import { Scalar, type ScalarValue } from './scalar.js';
import { Complex } from './complex-value.js';
import { TensorDomain } from './tensor-domain.js';
import { TensorView } from './tensor-view.js';
import type { IterType } from './types.js';
import type { Val } from './val.js';

interface NameCounters {
  tensor: number;
  iterDomain: number;
  scalar: number;
  expr: number;
}

export class Fusion {
  readonly inputs: Val[] = [];
  readonly outputs: Val[] = [];
  private readonly counters: NameCounters = { tensor: 0, iterDomain: 0, scalar: 0, expr: 0 };
  private readonly registeredVals: Val[] = [];
  private readonly registeredExprs: Expr[] = [];

  // ---- factories -------------------------------------------------------------------------

  /** A symbolic scalar (no known value), e.g. an input extent or a scalar fusion input. */
  newSymbolicScalar(dtype: DataType): Scalar {
    return this.track(new Scalar(this, this.counters.scalar++, dtype, null));
  }

  /** A constant scalar (a real value of a complex dtype becomes the Complex (value, 0)). */
  constant(value: ScalarValue, dtype: DataType): Scalar {
    const v = isComplexType(dtype) && !(value instanceof Complex) ? new Complex(Number(value), 0) : value;
    return this.track(new Scalar(this, this.counters.scalar++, dtype, v));
  }

  /** A constant of the Index type, the type of extents and factors. */
  index(value: number): Scalar {
    return this.constant(value, 'Index');
  }

  /** A hardware value printed by name, such as `blockDim.x`. */
  namedScalar(name: string, dtype: DataType = 'Index'): Scalar {
    return this.track(new Scalar(this, this.counters.scalar++, dtype, null, name));
  }

  newIterDomain(
    extent: Scalar,
    iterType: IterType,
    opts: { isRFactorProduct?: boolean; expandedExtent?: Scalar | null } = {},
  ): IterDomain {
    return this.track(
      new IterDomain(
        this,
        this.counters.iterDomain++,
        extent,
        iterType,
        opts.isRFactorProduct ?? false,
        opts.expandedExtent ?? null,
      ),
    );
  }

  newTensorView(domain: TensorDomain, dtype: DataType): TensorView {
    return this.track(new TensorView(this, this.counters.tensor++, domain, dtype));
  }

  /** Convenience: a tensor with the given logical IDs, contiguous where not broadcast. */
  newTensorFromDomain(logical: IterDomain[], dtype: DataType, contiguity?: (boolean | null)[]): TensorView {
    return this.newTensorView(new TensorDomain(contiguity ? { logical, contiguity } : { logical }), dtype);
  }

  /** Called by Expr constructors; returns the expr's name. */
  registerExpr(expr: Expr): number {
    for (const out of expr.outputs) {
      if (out.definition !== null && out.definition !== expr) {
        throw new FusionIrError(`${describeVal(out)} already has a definition`);
      }
      out.definition = expr;
    }
    // Only ExprBase's constructor calls this, so the expr is in no use list yet: only an input it
    // reads twice (add(x, x)) must not be recorded twice. (Searching `input.uses` made a chain
    // that reads one input n times O(n²).)
    expr.inputs.forEach((input, k) => {
      if (expr.inputs.indexOf(input) === k) input.uses.push(expr);
    });
    this.registeredExprs.push(expr);
    return this.counters.expr++;
  }

  /** Unlinks an expression: its outputs lose their definition and its inputs the use. */
  removeExpr(expr: Expr): void {
    for (const out of expr.outputs) if (out.definition === expr) out.definition = null;
    for (const input of expr.inputs) {
      const k = input.uses.indexOf(expr);
      if (k >= 0) input.uses.splice(k, 1);
    }
    const i = this.registeredExprs.indexOf(expr);
    if (i >= 0) this.registeredExprs.splice(i, 1);
  }

  // ---- inputs and outputs ----------------------------------------------------------------

  addInput(v: Val): void {
    if (v.fusion !== this) throw new FusionIrError(`${describeVal(v)} belongs to another fusion`);
    if (v.definition !== null) throw new FusionIrError(`${describeVal(v)} is computed and cannot be an input`);
    if (v.kind === 'tensorView') v.memoryType = 'Global';
    this.inputs.push(v);
  }

  addOutput(v: Val): void {
    if (v.fusion !== this) throw new FusionIrError(`${describeVal(v)} belongs to another fusion`);
    if (v.kind === 'tensorView') v.memoryType = 'Global';
    this.outputs.push(v);
  }

  removeOutput(v: Val): void {
    const i = this.outputs.indexOf(v);
    if (i >= 0) this.outputs.splice(i, 1);
    if (v.kind === 'tensorView' && !this.inputs.includes(v)) v.memoryType = 'Local';
  }

  replaceOutput(oldVal: Val, newVal: Val): void {
    const i = this.outputs.indexOf(oldVal);
    if (i < 0) throw new FusionIrError(`${describeVal(oldVal)} is not an output`);
    this.outputs[i] = newVal;
    if (newVal.kind === 'tensorView') newVal.memoryType = 'Global';
    if (oldVal.kind === 'tensorView' && !this.inputs.includes(oldVal) && !this.outputs.includes(oldVal)) {
      oldVal.memoryType = 'Local';
    }
  }

  // ---- traversal -------------------------------------------------------------------------

  /**
   * The math: every non-IterDomain expression that the outputs depend on, in a deterministic
   * topological order (depth-first from the outputs, producers before consumers).
   */
  exprs(): Expr[] {
    return exprsBetween([], this.outputs);
  }

  /** Every registered expression, IterDomain transforms included, in creation order. */
  allExprs(): readonly Expr[] {
    return this.registeredExprs;
  }

  /** Every Val created in this fusion, in creation order. */
  vals(): readonly Val[] {
    return this.registeredVals;
  }

  /** TensorViews that outputs depend on (inputs included), in topological order. */
  allTvs(): TensorView[] {
    const seen = new Set<TensorView>();
    const order: TensorView[] = [];
    const add = (v: Val): void => {
      if (v.kind === 'tensorView' && !seen.has(v)) {
        seen.add(v);
        order.push(v);
      }
    };
    for (const v of this.inputs) add(v);
    for (const e of this.exprs()) {
      for (const v of e.inputs) add(v);
      for (const v of e.outputs) add(v);
    }
    return order;
  }

  /** A deep copy preserving names, domains, schedules and inputs/outputs (ir/clone.ts). */
  clone(): FusionClone {
    return cloneFusion(this);
  }

  /** Continue naming after the given counters (used by clone to keep names identical). */
  syncCounters(from: Fusion): void {
    Object.assign(this.counters, from.counters);
  }

  /** @internal clone support: register a Val built with an explicit name. */
  adopt<V extends Val>(v: V): V {
    return this.track(v);
  }

  private track<V extends Val>(v: V): V {
    this.registeredVals.push(v);
    return v;
  }
}

/** Topologically ordered non-ID exprs on paths from `from` (exclusive) to `to`. */
export function exprsBetween(from: readonly Val[], to: readonly Val[]): Expr[] {
  const stop = new Set<Val>(from);
  const visited = new Set<Expr>();
  const order: Expr[] = [];
  // Iterative DFS so deep chains (thousands of ops) cannot overflow the stack.
  const stack: { val: Val; expanded: boolean }[] = [];
  for (let i = to.length - 1; i >= 0; i -= 1) stack.push({ val: to[i] as Val, expanded: false });
  const pushed = new Set<Expr>();
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { val: Val; expanded: boolean };
    const def = top.val.definition;
    if (def === null || stop.has(top.val) || isIterDomainExpr(def) || visited.has(def)) {
      stack.pop();
      continue;
    }
    if (!top.expanded) {
      top.expanded = true;
      if (!pushed.has(def)) {
        pushed.add(def);
        for (let i = def.inputs.length - 1; i >= 0; i -= 1) stack.push({ val: def.inputs[i] as Val, expanded: false });
      }
      continue;
    }
    stack.pop();
    if (!visited.has(def)) {
      visited.add(def);
      order.push(def);
    }
  }
  return order;
}

export function describeVal(v: Val): string {
  switch (v.kind) {
    case 'tensorView':
      return `T${v.name}`;
    case 'iterDomain':
      return `IterDomain ${v.name}`;
    case 'scalar':
      return v.value !== null ? `constant ${String(v.value)}` : v.symbolicName();
    default: {
      const unreachable: never = v;
      return String(unreachable);
    }
  }
}
