// FunctionSchema: the parsed form of an operator signature such as
// `aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`, and its printer.
// Invariant: parseSchema(printSchema(s)) is equal to s.

import { formatShortestDouble } from '../ir/float-format.js';
import { quoteString } from '../text/lexer.js';
import type { JitType } from '../types/jit-type.js';
import type { AliasAnnotation } from '../types/type-parser.js';
import { printType } from '../types/type-printer.js';

export type SchemaDefault =
  | { readonly kind: 'int'; readonly value: bigint }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'str'; readonly value: string }
  | { readonly kind: 'none' }
  | { readonly kind: 'list'; readonly items: readonly SchemaDefault[] }
  /** Enum-like identifiers: `contiguous_format`, `Mean`, `long`. */
  | { readonly kind: 'name'; readonly value: string };

export interface SchemaArgument {
  readonly name: string;
  readonly type: JitType;
  readonly alias: AliasAnnotation | null;
  readonly defaultValue: SchemaDefault | null;
  readonly kwargOnly: boolean;
}

export interface SchemaReturn {
  readonly name: string | null;
  readonly type: JitType;
  readonly alias: AliasAnnotation | null;
}

export interface FunctionSchema {
  /** Qualified operator name without overload: `aten::add`. */
  readonly name: string;
  /** Overload name (`Tensor` in `aten::add.Tensor`), '' when none. */
  readonly overloadName: string;
  readonly arguments: readonly SchemaArgument[];
  readonly returns: readonly SchemaReturn[];
  /** `...` in the argument list. */
  readonly isVararg: boolean;
  /** Returns were written as a parenthesised list (`-> (Tensor)` keeps its parentheses). */
  readonly returnsTuple: boolean;
}

/** True when some argument carries a write alias annotation (`Tensor(a!)`). */
export function isMutatingSchema(s: FunctionSchema): boolean {
  return s.arguments.some((a) => a.alias?.isWrite === true);
}

export function printSchemaDefault(d: SchemaDefault): string {
  switch (d.kind) {
    case 'int':
      return d.value.toString();
    case 'float':
      return formatShortestDouble(d.value);
    case 'bool':
      return d.value ? 'True' : 'False';
    case 'str':
      return quoteString(d.value);
    case 'none':
      return 'None';
    case 'list':
      return `[${d.items.map(printSchemaDefault).join(', ')}]`;
    case 'name':
      return d.value;
  }
}

function printAlias(a: AliasAnnotation | null): string {
  if (a === null) return '';
  const after = a.afterSets.length > 0 ? ` -> ${a.afterSets.join('|')}` : '';
  return `(${a.sets.join('|')}${a.isWrite ? '!' : ''}${after})`;
}

function printTypeWithAlias(type: JitType, alias: AliasAnnotation | null): string {
  if (alias === null) return printType(type);
  // The alias annotation goes right after the Tensor, before any `[]` or `?`.
  let suffix = '';
  let t = type;
  for (;;) {
    if (t.kind === 'List') {
      suffix = `[${t.fixedSize ?? ''}]${suffix}`;
      t = t.elem;
    } else if (t.kind === 'Optional') {
      suffix = `?${suffix}`;
      t = t.elem;
    } else {
      break;
    }
  }
  return `${printType(t)}${printAlias(alias)}${suffix}`;
}

export function printSchema(s: FunctionSchema): string {
  const args: string[] = [];
  let sawKwarg = false;
  for (const a of s.arguments) {
    if (a.kwargOnly && !sawKwarg) {
      args.push('*');
      sawKwarg = true;
    }
    const def = a.defaultValue === null ? '' : `=${printSchemaDefault(a.defaultValue)}`;
    args.push(`${printTypeWithAlias(a.type, a.alias)} ${a.name}${def}`);
  }
  if (s.isVararg) args.push('...');
  const rets = s.returns.map((r) => `${printTypeWithAlias(r.type, r.alias)}${r.name === null ? '' : ` ${r.name}`}`);
  const only = rets[0];
  const retText = !s.returnsTuple && only !== undefined && rets.length === 1 ? only : `(${rets.join(', ')})`;
  const overload = s.overloadName === '' ? '' : `.${s.overloadName}`;
  return `${s.name}${overload}(${args.join(', ')}) -> ${retText}`;
}
