// What a TorchScript value becomes during lowering (JitVal): a fusion tensor or scalar, a
// compile-time constant (int, float, bool, str, None, device, list), or a value that exists in the
// graph but cannot be used inside a fusion (it carries the reason, reported only if it is used).
// staticValue() resolves the compile-time constants of a graph without building a fusion, so the
// fusibility check (jitOpSupport) and the lowering agree on what counts as constant:
// prim::Constant, prim::ListConstruct of constants, and prim::profile_ivalue (the profiled value).

import { constantValue, type Node, type Value } from '@tsfuser/jit-ir';
import type { Scalar, TensorView } from '@tsfuser/fusion-ir';

export type JitVal =
  | { readonly kind: 'tensor'; readonly tv: TensorView }
  | { readonly kind: 'scalar'; readonly scalar: Scalar }
  | { readonly kind: 'int'; readonly value: number | bigint }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'str'; readonly value: string }
  | { readonly kind: 'none' }
  | { readonly kind: 'device'; readonly text: string }
  | { readonly kind: 'list'; readonly items: readonly JitVal[] }
  | { readonly kind: 'unavailable'; readonly reason: string };

export const tensorVal = (tv: TensorView): JitVal => ({ kind: 'tensor', tv });
export const scalarVal = (scalar: Scalar): JitVal => ({ kind: 'scalar', scalar });

/** A short description for error messages: `tensor`, `int 3`, `int[] [0, 1]`, `None` … */
export function describeJitVal(v: JitVal): string {
  switch (v.kind) {
    case 'tensor':
      return `tensor T${v.tv.name} (${v.tv.dtype}, rank ${v.tv.rank()})`;
    case 'scalar':
      return `runtime ${v.scalar.dtype} scalar`;
    case 'int':
    case 'float':
    case 'bool':
      return `${v.kind} ${String(v.value)}`;
    case 'str':
      return `str "${v.value}"`;
    case 'none':
      return 'None';
    case 'device':
      return `Device ${v.text}`;
    case 'list':
      return `list [${v.items.map(describeJitVal).join(', ')}]`;
    case 'unavailable':
      return `unavailable value (${v.reason})`;
  }
}

/** The value of a prim::Constant node as a JitVal (opaque tensors are unavailable). */
function fromConstantNode(node: Node): JitVal | null {
  // A boxed scalar tensor (`Long() = prim::Constant[value=1]()`) is a tensor, not a number.
  if (node.output().type.kind === 'Tensor') return null;
  const c = constantValue(node);
  if (c === null) return null;
  switch (c.kind) {
    case 'int':
      return { kind: 'int', value: c.value };
    case 'float':
      return { kind: 'float', value: c.value };
    case 'bool':
      return { kind: 'bool', value: c.value };
    case 'str':
      return { kind: 'str', value: c.value };
    case 'none':
      return { kind: 'none' };
    case 'intList':
      return { kind: 'list', items: c.value.map((value) => ({ kind: 'int', value })) };
    case 'floatList':
      return { kind: 'list', items: c.value.map((value) => ({ kind: 'float', value })) };
    case 'device':
      return { kind: 'device', text: c.value.index === null ? c.value.type : `${c.value.type}:${c.value.index}` };
    case 'tensor':
      // Tensor constants are lowered by the prim::Constant lowering (they need a fusion).
      return null;
  }
}

/** The value a prim::profile_ivalue recorded, from its `profiled_*` attribute. */
function profiledValue(node: Node): JitVal | null {
  for (const name of node.attributeNames()) {
    if (!name.startsWith('profiled_')) continue;
    const a = node.attribute(name);
    if (a === undefined) continue;
    const isBool = name.includes('bool');
    switch (a.kind) {
      case 'i':
        return isBool ? { kind: 'bool', value: a.value !== 0n } : { kind: 'int', value: smallInt(a.value) };
      case 'f':
        return { kind: 'float', value: a.value };
      case 's':
        return { kind: 'str', value: a.value };
      case 'is':
        return {
          kind: 'list',
          items: a.value.map((v): JitVal => (isBool ? { kind: 'bool', value: v !== 0n } : { kind: 'int', value: smallInt(v) })),
        };
      case 'fs':
        return { kind: 'list', items: a.value.map((value): JitVal => ({ kind: 'float', value })) };
      default:
        break;
    }
  }
  return null;
}

function smallInt(v: bigint): number | bigint {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

/**
 * The compile-time value of `v`, or null when it is only known at run time (a graph input, a
 * tensor, the result of an op). prim::profile_ivalue gives the profiled value unless its input
 * is itself constant (the fuser guards the profiled value, as the legacy fuser did).
 */
export function staticValue(v: Value): JitVal | null {
  const node = v.node;
  switch (node.kind) {
    case 'prim::Constant':
      return fromConstantNode(node);
    case 'prim::ListConstruct': {
      const items: JitVal[] = [];
      for (const input of node.inputs) {
        const item = staticValue(input);
        if (item === null) return null;
        items.push(item);
      }
      return { kind: 'list', items };
    }
    case 'prim::profile_ivalue': {
      const input = node.inputs[0];
      const direct = input === undefined ? null : staticValue(input);
      return direct ?? profiledValue(node);
    }
    default:
      return null;
  }
}
