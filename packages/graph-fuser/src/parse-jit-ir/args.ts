// Typed access to a node's arguments by their schema names (`self`, `dim`, `keepdim` …), for
// lowerings (NodeArgs: values already lowered into the fusion) and for the fusibility check
// (StaticArgs: compile-time constants only). A wrong kind of argument is a JitLoweringError that
// names the op, the argument and what was found.

import type { FunctionSchema, Node, Value } from '@tsfuser/jit-ir';
import type { Fusion, Operand, Scalar, SizeOperand, TensorView } from '@tsfuser/fusion-ir';
import { cast } from '@tsfuser/fusion-ir';
import { nodeError } from './errors.js';
import { describeJitVal, staticValue, type JitVal } from './values.js';

/** The node's input for schema argument `name`, or undefined when the schema has no such argument. */
export function argumentValue(node: Node, schema: FunctionSchema, name: string): Value | undefined {
  const i = schema.arguments.findIndex((a) => a.name === name);
  return i < 0 ? undefined : node.inputs[i];
}

/** Compile-time view of a node's arguments (used by jitOpSupport before any fusion exists). */
export class StaticArgs {
  constructor(
    readonly node: Node,
    readonly schema: FunctionSchema,
  ) {}

  has(name: string): boolean {
    return argumentValue(this.node, this.schema, name) !== undefined;
  }

  /** The constant value of argument `name`, or null when it is only known at run time. */
  get(name: string): JitVal | null {
    const v = argumentValue(this.node, this.schema, name);
    return v === undefined ? null : staticValue(v);
  }

  bool(name: string): boolean | null {
    const v = this.get(name);
    return v?.kind === 'bool' ? v.value : v?.kind === 'int' ? Number(v.value) !== 0 : null;
  }

  str(name: string): string | null {
    const v = this.get(name);
    return v?.kind === 'str' ? v.value : null;
  }

  isNone(name: string): boolean {
    return this.get(name)?.kind === 'none';
  }

  /**
   * The length of list argument `name` when it is known before run time although its items may
   * not be: a constant list, or a prim::ListConstruct of runtime ints (`[x.shape[-1]]`).
   */
  staticLength(name: string): number | null {
    const v = argumentValue(this.node, this.schema, name);
    if (v === undefined) return null;
    const c = staticValue(v);
    if (c?.kind === 'list') return c.items.length;
    if (c?.kind === 'int') return 1;
    if (v.node.kind === 'prim::ListConstruct' && v.node.inputs.every((x) => x.type.kind === 'Int')) return v.node.inputs.length;
    return null;
  }
}

/** Arguments of a node whose inputs have been lowered (the lowering's view). */
export class NodeArgs {
  constructor(
    readonly node: Node,
    readonly schema: FunctionSchema,
    readonly fusion: Fusion,
    private readonly lookup: (v: Value) => JitVal,
  ) {}

  fail(reason: string): never {
    throw nodeError(this.node, reason);
  }

  has(name: string): boolean {
    return argumentValue(this.node, this.schema, name) !== undefined;
  }

  /** The graph value passed as argument `name`. */
  graphValue(name: string): Value {
    const v = argumentValue(this.node, this.schema, name);
    return v ?? this.fail(`internal: schema ${this.schema.name} has no argument '${name}'`);
  }

  value(name: string): JitVal {
    const v = argumentValue(this.node, this.schema, name);
    if (v === undefined) return this.fail(`internal: schema ${this.schema.name} has no argument '${name}'`);
    const j = this.lookup(v);
    if (j.kind === 'unavailable') return this.fail(`argument '${name}' (%${v.debugName()}) is not available in a fusion: ${j.reason}`);
    return j;
  }

  private wrong(name: string, expected: string, got: JitVal): never {
    return this.fail(`argument '${name}' must be ${expected}, got ${describeJitVal(got)}`);
  }

  tensor(name: string): TensorView {
    const v = this.value(name);
    return v.kind === 'tensor' ? v.tv : this.wrong(name, 'a tensor', v);
  }

  optionalTensor(name: string): TensorView | null {
    if (!this.has(name)) return null;
    const v = this.value(name);
    if (v.kind === 'none') return null;
    return v.kind === 'tensor' ? v.tv : this.wrong(name, 'a tensor or None', v);
  }

  isNone(name: string): boolean {
    return !this.has(name) || this.value(name).kind === 'none';
  }

  /** A constant int (negative dims included). */
  int(name: string): number {
    const v = this.value(name);
    if (v.kind === 'int') return Number(v.value);
    return this.wrong(name, 'a constant int', v);
  }

  optionalInt(name: string): number | null {
    if (this.isNone(name)) return null;
    return this.int(name);
  }

  bool(name: string): boolean {
    const v = this.value(name);
    if (v.kind === 'bool') return v.value;
    if (v.kind === 'int') return Number(v.value) !== 0;
    return this.wrong(name, 'a constant bool', v);
  }

  str(name: string): string {
    const v = this.value(name);
    return v.kind === 'str' ? v.value : this.wrong(name, 'a constant str', v);
  }

  optionalStr(name: string): string | null {
    if (this.isNone(name)) return null;
    return this.str(name);
  }

  /** A constant number (int or float). */
  number(name: string): number {
    const v = this.value(name);
    if (v.kind === 'int' || v.kind === 'float') return Number(v.value);
    return this.wrong(name, 'a constant number', v);
  }

  /** A list of constant ints (a single int counts as a one-element list, as for `int[1]`). */
  intList(name: string): number[] {
    const v = this.value(name);
    if (v.kind === 'int') return [Number(v.value)];
    if (v.kind !== 'list') return this.wrong(name, 'a constant int list', v);
    return v.items.map((item) => (item.kind === 'int' ? Number(item.value) : this.wrong(name, 'a constant int list', v)));
  }

  /** The length of an int list whose items may be runtime ints (see StaticArgs.staticLength). */
  listLength(name: string): number {
    const v = this.value(name);
    if (v.kind === 'int') return 1;
    if (v.kind !== 'list') return this.wrong(name, 'an int list', v);
    return v.items.length;
  }

  optionalIntList(name: string): number[] | null {
    if (this.isNone(name)) return null;
    return this.intList(name);
  }

  /** Sizes for reshape/view/expand: constant ints or runtime int scalars (from aten::size). */
  sizeList(name: string): SizeOperand[] {
    const v = this.value(name);
    if (v.kind !== 'list') return this.wrong(name, 'an int list', v);
    return v.items.map((item): SizeOperand => {
      if (item.kind === 'int') return Number(item.value);
      if (item.kind === 'scalar' && (item.scalar.dtype === 'Int' || item.scalar.dtype === 'Index' || item.scalar.dtype === 'Int32')) {
        return item.scalar;
      }
      return this.wrong(name, 'a list of ints', v);
    });
  }

  /**
   * A floating scalar argument (eps, momentum): a constant becomes a JS number, a runtime value a
   * Scalar. `viaFloat` rounds a constant through float32 first, as the legacy parser read these
   * arguments with constant_as<float> (so eps 1e-5 prints as double(9.9999997473787516e-06)).
   */
  floatLike(name: string, viaFloat = false): Scalar | number {
    const v = this.value(name);
    if (v.kind === 'int' || v.kind === 'float') return viaFloat ? Math.fround(Number(v.value)) : Number(v.value);
    if (v.kind === 'scalar') return v.scalar.dtype === 'Double' ? v.scalar : cast(v.scalar, 'Double');
    return this.wrong(name, 'a number', v);
  }

  /**
   * A pointwise operand: tensors and runtime scalars as they are; constant ints as JS integers
   * (Int), floats as Double constants (a JS number cannot tell 2.0 from 2), bools as Bool.
   */
  operand(name: string): Operand {
    const v = this.value(name);
    return this.toOperand(name, v);
  }

  toOperand(name: string, v: JitVal): Operand {
    switch (v.kind) {
      case 'tensor':
        return v.tv;
      case 'scalar':
        return v.scalar;
      case 'int':
        return v.value;
      case 'float':
        return this.fusion.constant(v.value, 'Double');
      case 'bool':
        return v.value;
      default:
        return this.wrong(name, 'a tensor or a number', v);
    }
  }
}
