// Syntax tree of the python subset (expressions and the few statements repro scripts use).
// Every node keeps the position of its first token for error messages.

import type { Position } from './tokens.js';

export interface Keyword {
  readonly name: string;
  readonly value: Expr;
  readonly pos: Position;
}

export type Expr =
  | { readonly kind: 'name'; readonly id: string; readonly pos: Position }
  | { readonly kind: 'number'; readonly value: number; readonly isFloat: boolean; readonly text: string; readonly pos: Position; readonly imaginary?: boolean }
  | { readonly kind: 'string'; readonly value: string; readonly pos: Position }
  | { readonly kind: 'list'; readonly elements: readonly Expr[]; readonly pos: Position }
  | { readonly kind: 'tuple'; readonly elements: readonly Expr[]; readonly pos: Position }
  | { readonly kind: 'attribute'; readonly object: Expr; readonly attr: string; readonly pos: Position }
  | { readonly kind: 'call'; readonly func: Expr; readonly args: readonly Expr[]; readonly keywords: readonly Keyword[]; readonly pos: Position }
  | { readonly kind: 'subscript'; readonly object: Expr; readonly index: Expr; readonly pos: Position }
  | { readonly kind: 'unary'; readonly op: '-' | '+'; readonly operand: Expr; readonly pos: Position }
  | { readonly kind: 'binary'; readonly op: string; readonly left: Expr; readonly right: Expr; readonly pos: Position }
  /** `*name` in a tuple (an assignment target such as `attn, *_ = fd.ops.sdpfa_fwd(…)`). */
  | { readonly kind: 'starred'; readonly value: Expr; readonly pos: Position };

export interface WithItem {
  readonly context: Expr;
  readonly asName: string | null;
}

export type Stmt =
  | { readonly kind: 'import'; readonly pos: Position }
  | { readonly kind: 'def'; readonly name: string; readonly params: readonly string[]; readonly body: readonly Stmt[]; readonly pos: Position }
  | { readonly kind: 'with'; readonly items: readonly WithItem[]; readonly body: readonly Stmt[]; readonly pos: Position }
  | { readonly kind: 'for'; readonly target: Expr; readonly iter: Expr; readonly body: readonly Stmt[]; readonly pos: Position }
  | { readonly kind: 'assign'; readonly target: Expr; readonly value: Expr; readonly pos: Position }
  | { readonly kind: 'expr'; readonly expr: Expr; readonly pos: Position }
  | { readonly kind: 'pass'; readonly pos: Position }
  | { readonly kind: 'return'; readonly value: Expr | null; readonly pos: Position };
