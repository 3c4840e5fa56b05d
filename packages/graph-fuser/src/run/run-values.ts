// The values runGraph passes along a graph: tensors are fusion-ir HostTensors (standing for CUDA
// tensors), scalars JS numbers / bigints / booleans, plus strings, None (null), devices and lists.
// A tensor's device and requires_grad (which a HostTensor does not carry) are attached with
// `withTensorMeta`; by default a tensor is on cuda:0 and does not require grad.

import { Complex, HostTensor, type DataType, type ElementValue } from '@tsfuser/fusion-ir';
import { IntType, FloatType, BoolType, type ConstantValue, type Device, type JitType, type ScalarType } from '@tsfuser/jit-ir';

export type RunValue = HostTensor | ElementValue | string | null | { readonly device: Device } | OpaqueValue | readonly RunValue[];

/** A value runGraph cannot compute with (an opaque `<Tensor>` constant); an error only when used. */
export interface OpaqueValue {
  readonly opaque: string;
}

export interface TensorMeta {
  readonly device: Device;
  readonly requiresGrad: boolean;
}

const DEFAULT_META: TensorMeta = { device: { type: 'cuda', index: 0 }, requiresGrad: false };
const metas = new WeakMap<HostTensor, TensorMeta>();

/** Attaches a device / requires_grad to `t` (what the guard checks besides dtype and layout). */
export function withTensorMeta(t: HostTensor, meta: Partial<TensorMeta>): HostTensor {
  metas.set(t, { ...tensorMeta(t), ...meta });
  return t;
}

export function tensorMeta(t: HostTensor): TensorMeta {
  return metas.get(t) ?? DEFAULT_META;
}

export function isTensor(v: RunValue): v is HostTensor {
  return v instanceof HostTensor;
}

export function isList(v: RunValue): v is readonly RunValue[] {
  return Array.isArray(v);
}

/** c10 ScalarType name of a fusion-ir dtype (Int → Long, Int32 → Int). */
export function scalarTypeOfDataType(d: DataType): ScalarType {
  switch (d) {
    case 'Bool':
      return 'Bool';
    case 'Int32':
      return 'Int';
    case 'Int':
    case 'Index':
      return 'Long';
    case 'Half':
      return 'Half';
    case 'BFloat16':
      return 'BFloat16';
    case 'Float':
      return 'Float';
    case 'Double':
      return 'Double';
    case 'Float8_e4m3fn':
      return 'Float8_e4m3fn';
    case 'Float8_e5m2':
      return 'Float8_e5m2';
    case 'Float8_e8m0fnu':
      return 'Float8_e8m0fnu';
    case 'UInt64':
      return 'UInt64';
    case 'ComplexFloat':
      return 'ComplexFloat';
    case 'ComplexDouble':
      return 'ComplexDouble';
  }
}

export function runValueOfConstant(c: ConstantValue): RunValue {
  switch (c.kind) {
    case 'int':
      return Number(c.value);
    case 'float':
    case 'bool':
    case 'str':
      return c.value;
    case 'none':
      return null;
    case 'intList':
      return c.value.map((x) => Number(x));
    case 'floatList':
      return [...c.value];
    case 'device':
      return { device: c.value };
    case 'tensor': {
      const t = c.value;
      if (t.kind !== 'scalar') return { opaque: `tensor constant ${t.text}` };
      return HostTensor.fromValues(t.floating ? 'Double' : 'Int', [], [t.floating ? t.value : BigInt(t.value)]);
    }
  }
}

/** A constant holding `v` (for one-node graphs that need static arguments), or null. */
export function constantOfRunValue(v: RunValue, type?: JitType): ConstantValue | null {
  if (v === null) return { kind: 'none' };
  if (typeof v === 'boolean') return { kind: 'bool', value: v };
  if (typeof v === 'bigint') return { kind: 'int', value: v };
  // A JS number has lost int vs float: the graph's type decides (a `float` 0. stays a float).
  if (typeof v === 'number' && type?.kind === 'Float') return { kind: 'float', value: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { kind: 'int', value: v } : { kind: 'float', value: v };
  if (typeof v === 'string') return { kind: 'str', value: v };
  if (isTensor(v)) return null;
  if (isList(v)) {
    if (v.every((x) => typeof x === 'number' && Number.isInteger(x))) return { kind: 'intList', value: v as number[] };
    if (v.every((x) => typeof x === 'number')) return { kind: 'floatList', value: v as number[] };
    return null;
  }
  if ('opaque' in v || v instanceof Complex) return null;
  return { kind: 'device', value: v.device };
}

/** A scalar input value converted to what its graph type says (int/float/bool). */
export function scalarForType(v: RunValue, type: JitType): RunValue {
  if (type === IntType || type.kind === 'Int') return typeof v === 'bigint' ? Number(v) : v;
  if (type === FloatType || type.kind === 'Float') return typeof v === 'bigint' ? Number(v) : v;
  if (type === BoolType || type.kind === 'Bool') return typeof v === 'number' ? v !== 0 : v;
  return v;
}

export function describeRunValue(v: RunValue): string {
  if (isTensor(v)) return `${scalarTypeOfDataType(v.dtype)}(${v.sizes.join(', ')})`;
  if (isList(v)) return `[${v.map(describeRunValue).join(', ')}]`;
  if (v === null) return 'None';
  if (v instanceof Complex) return String(v);
  if (typeof v === 'object') return 'opaque' in v ? `<${v.opaque}>` : `${v.device.type}:${v.device.index ?? ''}`;
  return String(v);
}
