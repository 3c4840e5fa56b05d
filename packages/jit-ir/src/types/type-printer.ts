// Prints JitTypes exactly as PyTorch's `operator<<(std::ostream&, const Type&)` does in graph
// dumps (TypeVerbosity::Full): `Float(8, 256, strides=[256, 1], requires_grad=0, device=cuda:0)`,
// `Float(*, *, requires_grad=0, device=cuda:0)`, `Tensor`, `int[]`, `Tensor?`, `(Tensor, int)`.
// Invariant: parseType(printType(t)) is structurally equal to t; sizes and strides print exactly
// (bigint digits included). printType is iterative: no type, however deep, overflows the stack.

import type { Device, JitType, SimpleTypeKind, TensorType } from './jit-type.js';

const SIMPLE_NAMES: Readonly<Record<SimpleTypeKind, string>> = {
  Int: 'int',
  Float: 'float',
  Bool: 'bool',
  Str: 'str',
  Complex: 'complex',
  Device: 'Device',
  None: 'NoneType',
  Number: 'number',
  Scalar: 'Scalar',
  Layout: 'Layout',
  ScalarType: 'ScalarType',
  MemoryFormat: 'MemoryFormat',
  Generator: 'Generator',
  Any: 'Any',
  Function: 'Function',
};

export function printDevice(d: Device): string {
  return d.index === null ? d.type : `${d.type}:${d.index}`;
}

/**
 * Printed tensor types by object: types are immutable, and a graph's values share few distinct
 * type objects (the parser interns them), so a 20,000-node graph prints each of them once.
 */
const printedTensorTypes = new WeakMap<TensorType, string>();

function printTensorType(t: TensorType): string {
  let text = printedTensorTypes.get(t);
  if (text === undefined) printedTensorTypes.set(t, (text = formatTensorType(t)));
  return text;
}

/** The text of a tensor type, uncached (printTensorType caches it per object). */
export function formatTensorType(t: TensorType): string {
  let out = t.scalarType ?? 'Tensor';
  if (t.scalarType !== null && t.sizes === null) out += 'Tensor';
  const details: string[] = [];
  if (t.sizes !== null) {
    for (const s of t.sizes) details.push(s === null ? '*' : String(s));
    if (t.sizes.length > 0 && t.strides !== null && t.strides.length === t.sizes.length) {
      details.push(`strides=[${t.strides.join(', ')}]`);
    }
  }
  if (t.requiresGrad !== null) details.push(`requires_grad=${t.requiresGrad ? 1 : 0}`);
  if (t.device !== null) details.push(`device=${printDevice(t.device)}`);
  if (t.sizes !== null || details.length > 0) out += `(${details.join(', ')})`;
  return out;
}

/**
 * The dump text of `t`. Iterative (an explicit work stack), so even a type nested far deeper
 * than the parser accepts, built through the API, prints without exhausting the JS stack.
 */
export function printType(t: JitType): string {
  if (t.kind === 'Tensor') return printTensorType(t); // the common case, without the work stack
  const out: string[] = [];
  // Each entry is a type still to print or literal text; popped last-in first-out.
  const work: (JitType | string)[] = [t];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    switch (item.kind) {
      case 'Tensor':
        out.push(printTensorType(item));
        break;
      case 'Optional':
        work.push('?', item.elem);
        break;
      case 'List':
        work.push(`[${item.fixedSize === null ? '' : item.fixedSize}]`, item.elem);
        break;
      case 'Tuple':
        work.push(')');
        for (let i = item.elems.length - 1; i >= 0; i--) {
          work.push(item.elems[i] as JitType);
          if (i > 0) work.push(', ');
        }
        work.push('(');
        break;
      case 'Int':
      case 'Float':
      case 'Bool':
      case 'Str':
      case 'Complex':
      case 'Device':
      case 'None':
      case 'Number':
      case 'Scalar':
      case 'Layout':
      case 'ScalarType':
      case 'MemoryFormat':
      case 'Generator':
      case 'Any':
      case 'Function':
        out.push(SIMPLE_NAMES[item.kind]);
        break;
    }
  }
  return out.join('');
}

export const SIMPLE_TYPE_NAMES: ReadonlyMap<string, SimpleTypeKind> = new Map([
  ...Object.entries(SIMPLE_NAMES).map(([kind, name]): [string, SimpleTypeKind] => [name, kind as SimpleTypeKind]),
  ['None', 'None'],
  ['Dtype', 'ScalarType'],
  // PyTorch's own IR tests write `%a : string = prim::Constant[value="abc"]()`. Its parser reads
  // the lower-case name as a type variable that prints back as `string`; here it is the string
  // type, printed `str` (StringType's name), so a second round trip is stable.
  ['string', 'Str'],
]);
