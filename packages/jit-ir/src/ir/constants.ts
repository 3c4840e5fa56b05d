// prim::Constant nodes: the values a constant can hold (PyTorch's IValue subset used in graphs),
// how each is stored as an attribute + output type, and how to read one back.
// Invariant: constantValue(makeConstant(g, c)) equals c (ints come back as numbers when safe).

import { IRError } from '../errors.js';
import { canonicalInteger } from '../text/integers.js';
import { printDevice } from '../types/type-printer.js';
import { parseDeviceString } from '../types/type-parser.js';
import {
  BoolType,
  DeviceObjType,
  DynamicTensorType,
  FloatType,
  IntType,
  NoneType,
  StringType,
  listType,
  type Device,
  type JitType,
  type TensorType,
} from '../types/jit-type.js';
import type { TensorLiteral } from './attributes.js';
import type { Graph } from './graph.js';
import type { Node } from './node.js';

export type ConstantValue =
  | { readonly kind: 'int'; readonly value: number | bigint }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'str'; readonly value: string }
  | { readonly kind: 'none' }
  | { readonly kind: 'intList'; readonly value: readonly (number | bigint)[] }
  | { readonly kind: 'floatList'; readonly value: readonly number[] }
  | { readonly kind: 'device'; readonly value: Device }
  | { readonly kind: 'tensor'; readonly value: TensorLiteral; readonly type?: TensorType };

/** Creates (but does not insert) a prim::Constant node holding `c`. */
export function createConstantNode(graph: Graph, c: ConstantValue): Node {
  const n = graph.create('prim::Constant', [], 1);
  const out = n.output();
  const set = (t: JitType): void => void out.setType(t);
  switch (c.kind) {
    case 'int':
      n.setI('value', c.value);
      set(IntType);
      break;
    case 'float':
      n.setF('value', c.value);
      set(FloatType);
      break;
    case 'bool':
      n.setI('value', c.value ? 1 : 0);
      set(BoolType);
      break;
    case 'str':
      n.setS('value', c.value);
      set(StringType);
      break;
    case 'none':
      set(NoneType);
      break;
    case 'intList':
      n.setIs('value', c.value);
      set(listType(IntType));
      break;
    case 'floatList':
      n.setFs('value', c.value);
      set(listType(FloatType));
      break;
    case 'device':
      n.setS('value', printDevice(c.value));
      set(DeviceObjType);
      break;
    case 'tensor':
      n.setT('value', c.value);
      set(c.type ?? DynamicTensorType);
      break;
  }
  return n;
}

/** The value held by a prim::Constant node, or null if `n` is not a constant. */
export function constantValue(n: Node): ConstantValue | null {
  if (n.kind !== 'prim::Constant' || n.outputs.length !== 1) return null;
  const type = n.output().type;
  const a = n.attribute('value');
  if (a === undefined) return type.kind === 'None' || type.kind === 'Optional' ? { kind: 'none' } : null;
  switch (a.kind) {
    case 'i':
      return type.kind === 'Bool' ? { kind: 'bool', value: a.value !== 0n } : { kind: 'int', value: canonicalInteger(a.value) };
    case 'f':
      return { kind: 'float', value: a.value };
    case 's':
      if (type.kind === 'Device') {
        try {
          return { kind: 'device', value: parseDeviceString(a.value) };
        } catch {
          throw new IRError(`Device constant has malformed value "${a.value}"`);
        }
      }
      return { kind: 'str', value: a.value };
    case 'is':
      return { kind: 'intList', value: a.value.map(canonicalInteger) };
    case 'fs':
      return { kind: 'floatList', value: a.value };
    case 't':
      return type.kind === 'Tensor' ? { kind: 'tensor', value: a.value, type } : { kind: 'tensor', value: a.value };
    case 'ss':
    case 'ty':
    case 'tys':
    case 'g':
      return null;
  }
}

/** The output type a constant attribute implies when the text gives none. */
export function inferConstantType(n: Node): JitType {
  const a = n.attribute('value');
  if (a === undefined) return NoneType;
  switch (a.kind) {
    case 'i':
      return IntType;
    case 'f':
      return FloatType;
    case 's':
      return StringType;
    case 'is':
      return listType(IntType);
    case 'fs':
      return listType(FloatType);
    case 'ss':
      return listType(StringType);
    case 't':
    case 'ty':
    case 'tys':
    case 'g':
      return DynamicTensorType;
  }
}
