// Recursive-descent parser for the python subset: statements (import/from, def, with, for,
// assignment incl. tuple targets, expression statements, pass, return) and expressions
// (names, numbers, strings, lists, tuples, attribute access, calls with keyword arguments,
// subscripts, unary ±, + - * / // % **). Anything else is a DefinitionImportError at its token.
//
// Depth limits keep every recursive pass (this parser, the interpreter, the input evaluator)
// far from the JS stack limit: brackets nest at most 200 deep (the tokenizer's limit), prefix
// operators chain at most MAX_PREFIX_CHAIN deep, and no expression tree is higher than
// MAX_EXPR_HEIGHT (long `a + b + …` chains and `x.a.b…`/`f()()…` suffix chains included).

import { DefinitionImportError } from '../errors.js';
import type { Expr, Keyword, Stmt, WithItem } from './ast.js';
import { showText, tokenize } from './tokenizer.js';
import type { Position, Token } from './tokens.js';

/** Longest chain of prefix operators (`- - x`, `+-x`) accepted. */
export const MAX_PREFIX_CHAIN = 200;
/** Highest expression tree accepted (each operator, call, subscript or bracket is one level). */
export const MAX_EXPR_HEIGHT = 1000;

export function parsePython(text: string): Stmt[] {
  return new Parser(tokenize(text)).module();
}

function describe(t: Token): string {
  switch (t.kind) {
    case 'newline':
      return 'end of line';
    case 'indent':
      return 'indent';
    case 'dedent':
      return 'dedent';
    case 'eof':
      return 'end of file';
    case 'string':
      return `"${showText(t.text.length > 40 ? `${t.text.slice(0, 40)}…` : t.text).replace(/"/g, '\\"')}"`;
    default:
      return `'${t.text}'`;
  }
}

class Parser {
  private i = 0;
  private prefixDepth = 0;
  /** Height of every compound expression built so far (leaves are 1). */
  private readonly heights = new WeakMap<Expr, number>();
  constructor(private readonly tokens: readonly Token[]) {}

  /** Records `e`'s height from its children's; fails at `e` past MAX_EXPR_HEIGHT. */
  private node<E extends Expr>(e: E, children: readonly Expr[]): E {
    let h = 0;
    for (const c of children) h = Math.max(h, this.heights.get(c) ?? 1);
    if (h + 1 > MAX_EXPR_HEIGHT) this.fail(`expression nested too deeply (limit ${MAX_EXPR_HEIGHT} levels)`, e.pos);
    this.heights.set(e, h + 1);
    return e;
  }

  private peek(offset = 0): Token {
    return (this.tokens[this.i + offset] ?? this.tokens[this.tokens.length - 1]) as Token;
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i += 1;
    return t;
  }

  private isOp(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'op' && t.text === text;
  }

  private isName(text: string): boolean {
    const t = this.peek();
    return t.kind === 'name' && t.text === text;
  }

  private fail(message: string, at: Position = this.peek()): never {
    throw new DefinitionImportError(message, at.line, at.column);
  }

  private expectOp(text: string): Token {
    if (!this.isOp(text)) this.fail(`expected '${text}', found ${describe(this.peek())}`);
    return this.next();
  }

  private expectName(): Token {
    const t = this.peek();
    if (t.kind !== 'name') this.fail(`expected a name, found ${describe(t)}`);
    return this.next();
  }

  private expectNewline(): void {
    const t = this.peek();
    if (t.kind === 'eof') return;
    if (this.isOp(';')) this.next();
    if (this.peek().kind !== 'newline') this.fail(`expected end of line, found ${describe(this.peek())}`);
    this.next();
  }

  module(): Stmt[] {
    const body: Stmt[] = [];
    while (this.peek().kind !== 'eof') {
      if (this.peek().kind === 'newline') {
        this.next();
        continue;
      }
      if (this.peek().kind === 'indent') this.fail('unexpected indent');
      body.push(this.statement());
    }
    return body;
  }

  private statement(): Stmt {
    const t = this.peek();
    if (t.kind === 'name') {
      switch (t.text) {
        case 'def':
          return this.def();
        case 'with':
          return this.with();
        case 'for':
          return this.for();
        case 'import':
        case 'from':
          return this.importStmt();
        default:
          break;
      }
    }
    const s = this.simpleStatement();
    this.expectNewline();
    return s;
  }

  private simpleStatement(): Stmt {
    const t = this.peek();
    if (this.isName('pass')) {
      this.next();
      return { kind: 'pass', pos: t };
    }
    if (this.isName('return')) {
      this.next();
      const value = this.peek().kind === 'newline' || this.peek().kind === 'eof' ? null : this.exprList();
      return { kind: 'return', value, pos: t };
    }
    const first = this.exprList();
    if (this.isOp('=')) {
      this.next();
      const value = this.exprList();
      if (first.kind !== 'name' && first.kind !== 'tuple' && first.kind !== 'list') this.fail('cannot assign to this expression', first.pos);
      return { kind: 'assign', target: first, value, pos: t };
    }
    return { kind: 'expr', expr: first, pos: t };
  }

  private starredOrExpr(): Expr {
    if (!this.isOp('*')) return this.expr();
    const t = this.next();
    return { kind: 'starred', value: this.expr(), pos: t };
  }

  private importStmt(): Stmt {
    const t = this.next();
    while (this.peek().kind !== 'newline' && this.peek().kind !== 'eof') this.next();
    this.expectNewline();
    return { kind: 'import', pos: t };
  }

  private suite(): Stmt[] {
    this.expectOp(':');
    if (this.peek().kind !== 'newline') {
      const s = this.simpleStatement();
      this.expectNewline();
      return [s];
    }
    this.next();
    if (this.peek().kind !== 'indent') this.fail(`expected an indented block, found ${describe(this.peek())}`);
    this.next();
    const body: Stmt[] = [];
    while (this.peek().kind !== 'dedent' && this.peek().kind !== 'eof') {
      if (this.peek().kind === 'newline') {
        this.next();
        continue;
      }
      body.push(this.statement());
    }
    if (this.peek().kind === 'dedent') this.next();
    return body;
  }

  private def(): Stmt {
    const t = this.next();
    const name = this.expectName().text;
    this.expectOp('(');
    const params: string[] = [];
    while (!this.isOp(')')) {
      params.push(this.expectName().text);
      if (this.isOp(':')) {
        this.next();
        this.expr();
      }
      if (this.isOp('=')) {
        this.next();
        this.expr();
      }
      if (!this.isOp(',')) break;
      this.next();
    }
    this.expectOp(')');
    if (this.isOp('->')) {
      this.next();
      this.expr();
    }
    return { kind: 'def', name, params, body: this.suite(), pos: t };
  }

  private with(): Stmt {
    const t = this.next();
    const items: WithItem[] = [];
    for (;;) {
      const context = this.expr();
      let asName: string | null = null;
      if (this.isName('as')) {
        this.next();
        asName = this.expectName().text;
      }
      items.push({ context, asName });
      if (!this.isOp(',')) break;
      this.next();
    }
    return { kind: 'with', items, body: this.suite(), pos: t };
  }

  private for(): Stmt {
    const t = this.next();
    const target = this.primary();
    if (!this.isName('in')) this.fail(`expected 'in', found ${describe(this.peek())}`);
    this.next();
    const iter = this.expr();
    return { kind: 'for', target, iter, body: this.suite(), pos: t };
  }

  /** `a` or `a, b, …` (a tuple; an element may be starred, `*rest`). */
  private exprList(): Expr {
    const first = this.starredOrExpr();
    if (!this.isOp(',')) return first;
    const elements = [first];
    while (this.isOp(',')) {
      this.next();
      if (this.atExprEnd()) break;
      elements.push(this.starredOrExpr());
    }
    return this.node({ kind: 'tuple', elements, pos: first.pos }, elements);
  }

  private atExprEnd(): boolean {
    const t = this.peek();
    return t.kind === 'newline' || t.kind === 'eof' || (t.kind === 'op' && (t.text === '=' || t.text === ')' || t.text === ']'));
  }

  expr(): Expr {
    return this.comparison();
  }

  /** `a < b` (one comparison: Python's chains `a < b < c` are refused, the inputs line never needs them). */
  private comparison(): Expr {
    const left = this.additive();
    const isCompare = (): boolean => ['<', '<=', '>', '>=', '==', '!='].some((op) => this.isOp(op));
    if (!isCompare()) return left;
    const op = this.next().text;
    const right = this.additive();
    if (isCompare()) this.fail('chained comparisons (a < b < c) are not supported', this.peek());
    return this.node({ kind: 'binary', op, left, right, pos: left.pos }, [left, right]);
  }

  private additive(): Expr {
    let left = this.multiplicative();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.next().text;
      const right = this.multiplicative();
      left = this.node({ kind: 'binary', op, left, right, pos: left.pos }, [left, right]);
    }
    return left;
  }

  private multiplicative(): Expr {
    let left = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('//') || this.isOp('%')) {
      const op = this.next().text;
      const right = this.unary();
      left = this.node({ kind: 'binary', op, left, right, pos: left.pos }, [left, right]);
    }
    return left;
  }

  private unary(): Expr {
    if (this.isOp('-') || this.isOp('+')) {
      const t = this.next();
      if (this.prefixDepth >= MAX_PREFIX_CHAIN) this.fail(`too many prefix operators in a row (limit ${MAX_PREFIX_CHAIN})`, t);
      this.prefixDepth += 1;
      const operand = this.unary();
      this.prefixDepth -= 1;
      return this.node({ kind: 'unary', op: t.text === '-' ? '-' : '+', operand, pos: t }, [operand]);
    }
    return this.power();
  }

  private power(): Expr {
    const base = this.primary();
    if (this.isOp('**')) {
      this.next();
      const right = this.unary();
      return this.node({ kind: 'binary', op: '**', left: base, right, pos: base.pos }, [base, right]);
    }
    return base;
  }

  private primary(): Expr {
    let e = this.atom();
    for (;;) {
      if (this.isOp('.')) {
        this.next();
        e = this.node({ kind: 'attribute', object: e, attr: this.expectName().text, pos: e.pos }, [e]);
      } else if (this.isOp('(')) {
        e = this.call(e);
      } else if (this.isOp('[')) {
        this.next();
        const index = this.subscriptList();
        this.expectOp(']');
        e = this.node({ kind: 'subscript', object: e, index, pos: e.pos }, [e, index]);
      } else {
        return e;
      }
    }
  }

  /** Subscript items: expressions, slices `a:b:c` (as python's `slice(a, b, c)`) and `...` (the name Ellipsis). */
  private subscriptList(): Expr {
    const items: Expr[] = [this.subscriptItem()];
    let tuple = false;
    while (this.isOp(',')) {
      this.next();
      tuple = true;
      if (this.isOp(']')) break;
      items.push(this.subscriptItem());
    }
    const first = items[0] as Expr;
    return tuple ? { kind: 'tuple', elements: items, pos: first.pos } : first;
  }

  private subscriptItem(): Expr {
    const t = this.peek();
    if (this.isOp('...')) {
      this.next();
      return { kind: 'name', id: 'Ellipsis', pos: t };
    }
    const atBoundary = (): boolean => this.isOp(':') || this.isOp(',') || this.isOp(']');
    const first = atBoundary() ? null : this.expr();
    if (!this.isOp(':')) return first ?? this.fail(`unexpected ${describe(this.peek())}`);
    const parts: (Expr | null)[] = [first];
    while (this.isOp(':') && parts.length < 3) {
      this.next();
      parts.push(atBoundary() ? null : this.expr());
    }
    const none: Expr = { kind: 'name', id: 'None', pos: t };
    return { kind: 'call', func: { kind: 'name', id: 'slice', pos: t }, args: [0, 1, 2].map((i) => parts[i] ?? none), keywords: [], pos: t };
  }

  private call(func: Expr): Expr {
    const open = this.expectOp('(');
    const args: Expr[] = [];
    const keywords: Keyword[] = [];
    while (!this.isOp(')')) {
      const t = this.peek();
      if (t.kind === 'name' && this.isOp('=', 1)) {
        this.next();
        this.next();
        if (keywords.some((k) => k.name === t.text)) this.fail(`keyword argument repeated: ${t.text}`, t);
        keywords.push({ name: t.text, value: this.expr(), pos: t });
      } else {
        if (keywords.length > 0) this.fail('positional argument follows keyword argument');
        if (this.isOp('*') || this.isOp('**')) this.fail('*args and **kwargs are not supported');
        args.push(this.expr());
      }
      if (!this.isOp(',')) break;
      this.next();
    }
    if (!this.isOp(')')) this.fail(`expected ',' or ')' in the call opened at ${open.line}:${open.column}, found ${describe(this.peek())}`);
    this.next();
    return this.node({ kind: 'call', func, args, keywords, pos: func.pos }, [func, ...args, ...keywords.map((k) => k.value)]);
  }

  private atom(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case 'name':
        this.next();
        return { kind: 'name', id: t.text, pos: t };
      case 'number': {
        this.next();
        const clean = t.text.replace(/_/g, '');
        if (/[jJ]$/.test(clean)) return { kind: 'number', value: Number(clean.slice(0, -1)), isFloat: true, text: t.text, pos: t, imaginary: true };
        const isFloat = !/^0[xX]/.test(clean) && /[.eE]/.test(clean);
        const value = /^0[xX]/.test(clean) ? parseInt(clean, 16) : Number(clean);
        return { kind: 'number', value, isFloat, text: t.text, pos: t };
      }
      case 'string': {
        this.next();
        let value = t.text;
        while (this.peek().kind === 'string') value += this.next().text;
        return { kind: 'string', value, pos: t };
      }
      case 'op':
        if (t.text === '(') {
          this.next();
          if (this.isOp(')')) {
            this.next();
            return { kind: 'tuple', elements: [], pos: t };
          }
          const inner = this.exprList();
          this.expectOp(')');
          return inner.kind === 'tuple' ? this.node({ ...inner, pos: t }, inner.elements) : inner;
        }
        if (t.text === '[') {
          this.next();
          const elements: Expr[] = [];
          while (!this.isOp(']')) {
            elements.push(this.expr());
            if (!this.isOp(',')) break;
            this.next();
          }
          if (!this.isOp(']')) this.fail(`expected ',' or ']' in the list opened at ${t.line}:${t.column}, found ${describe(this.peek())}`);
          this.next();
          return this.node({ kind: 'list', elements, pos: t }, elements);
        }
        return this.fail(`unexpected ${describe(t)}`);
      default:
        return this.fail(`unexpected ${describe(t)}`);
    }
  }
}
