// Node attributes (PyTorch's AttributeKind: i, f, s, is, fs, ss, t, ty, g) as a discriminated
// union, with equality (for CSE and constant pooling) and the dump syntax
// (`[value=1.0000000000000001e-05]`, `[value="cuda:0"]`, `[value={1}]`, `[value=[1, 2]]`).

import type { JitType } from '../types/jit-type.js';
import { printType, typesEqual } from '../types/index.js';
import { quoteString } from '../text/lexer.js';
import { formatDouble, formatG } from './float-format.js';
import type { Graph } from './graph.js';

/** A tensor constant as graph dumps show it: one boxed scalar `{2}`, or an opaque `<Tensor>`. */
export type TensorLiteral = { readonly kind: 'scalar'; readonly value: number; readonly floating: boolean } | { readonly kind: 'opaque'; readonly text: string };

export type AttributeValue =
  | { readonly kind: 'i'; readonly value: bigint }
  | { readonly kind: 'f'; readonly value: number }
  | { readonly kind: 's'; readonly value: string }
  | { readonly kind: 'is'; readonly value: readonly bigint[] }
  | { readonly kind: 'fs'; readonly value: readonly number[] }
  | { readonly kind: 'ss'; readonly value: readonly string[] }
  | { readonly kind: 't'; readonly value: TensorLiteral }
  | { readonly kind: 'ty'; readonly value: JitType }
  | { readonly kind: 'tys'; readonly value: readonly JitType[] }
  | { readonly kind: 'g'; readonly value: Graph };

export type AttributeKind = AttributeValue['kind'];

function sameNumber(a: number, b: number): boolean {
  return Object.is(a, b) || (a === b && a !== 0);
}

export function attributeValuesEqual(a: AttributeValue, b: AttributeValue): boolean {
  switch (a.kind) {
    case 'i':
      return b.kind === 'i' && a.value === b.value;
    case 'f':
      return b.kind === 'f' && sameNumber(a.value, b.value);
    case 's':
      return b.kind === 's' && a.value === b.value;
    case 'is':
      return b.kind === 'is' && a.value.length === b.value.length && a.value.every((x, i) => x === b.value[i]);
    case 'fs':
      return b.kind === 'fs' && a.value.length === b.value.length && a.value.every((x, i) => sameNumber(x, b.value[i] ?? NaN));
    case 'ss':
      return b.kind === 'ss' && a.value.length === b.value.length && a.value.every((x, i) => x === b.value[i]);
    case 't':
      return b.kind === 't' && tensorLiteralsEqual(a.value, b.value);
    case 'ty':
      return b.kind === 'ty' && typesEqual(a.value, b.value);
    case 'tys':
      return b.kind === 'tys' && a.value.length === b.value.length && a.value.every((x, i) => typesEqual(x, b.value[i] as JitType));
    case 'g':
      return b.kind === 'g' && a.value === b.value;
  }
}

function tensorLiteralsEqual(a: TensorLiteral, b: TensorLiteral): boolean {
  if (a.kind === 'scalar') return b.kind === 'scalar' && a.floating === b.floating && sameNumber(a.value, b.value);
  // Opaque tensors cannot be compared by value: only the same literal object is equal.
  return a === b;
}

export function printTensorLiteral(t: TensorLiteral): string {
  switch (t.kind) {
    case 'scalar':
      return `{${t.floating ? formatG(t.value, 6) : String(t.value)}}`;
    case 'opaque':
      return t.text;
  }
}

/** The text after `name=` in a node's attribute list. */
export function printAttributeValue(a: AttributeValue): string {
  switch (a.kind) {
    case 'i':
      return a.value.toString();
    case 'f':
      return formatDouble(a.value);
    case 's':
      return quoteString(a.value);
    case 'is':
      return `[${a.value.map((v) => v.toString()).join(', ')}]`;
    case 'fs':
      return `[${a.value.map(formatDouble).join(', ')}]`;
    case 'ss':
      return `[${a.value.map(quoteString).join(', ')}]`;
    case 't':
      return printTensorLiteral(a.value);
    case 'ty':
      return printType(a.value);
    case 'tys':
      return `[${a.value.map(printType).join(', ')}]`;
    case 'g':
      return '<Graph>';
  }
}
