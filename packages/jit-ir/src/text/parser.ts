// parseIR: reads the text format PyTorch prints for graphs (and torch::jit::parseIR accepts)
// into a Graph: typed inputs, nodes with several or no outputs, attributes, nested blocks,
// source-range comments, `return (...)`, and `with <kind>_<n> = graph(...)` subgraph sections.
// Values named by digits only (`%5`) get no debug name (they print as their id, like PyTorch).
// Invariants: any malformed text raises one ParseError with line:column; nothing else escapes.
// Blocks and `with` subgraphs nest at most MAX_BLOCK_NESTING deep (types: MAX_TYPE_NESTING), so
// the recursive descent, the printer and Graph.copy stay far from the JS stack limit. Work is
// linear in the text size.

import { IRError, ParseError } from '../errors.js';
import { canonicalInteger, int64FromToken } from './integers.js';
import type { AttributeValue, TensorLiteral } from '../ir/attributes.js';
import type { Block } from '../ir/block.js';
import { inferConstantType } from '../ir/constants.js';
import { Graph } from '../ir/graph.js';
import type { Node } from '../ir/node.js';
import type { Value } from '../ir/value.js';
import { schemasFor } from '../schema/schema-table.js';
import { DynamicTensorType, type JitType } from '../types/jit-type.js';
import { parseTypeAt } from '../types/type-parser.js';
import { Lexer, describeToken, type Token } from './lexer.js';
import { TokenCursor, type TokenOf } from './cursor.js';

/**
 * The deepest nesting of blocks (`prim::If`/`prim::Loop` bodies) and `with` subgraphs accepted.
 * Real graphs stay below 20; deeper text raises "block nesting deeper than 256".
 */
export const MAX_BLOCK_NESTING = 256;

class Scope {
  private readonly values = new Map<string, Value>();
  constructor(readonly parent: Scope | null) {}
  lookup(name: string): Value | undefined {
    let v = this.values.get(name);
    for (let s = this.parent; v === undefined && s !== null; s = s.parent) v = s.values.get(name);
    return v;
  }
  define(name: string, v: Value): void {
    this.values.set(name, v);
  }
}

/** Per-graph parse state: every name defined so far and `<kind>_<n>` nodes awaiting a `with`. */
interface GraphState {
  readonly graph: Graph;
  readonly definedNames: Set<string>;
  readonly pendingGroups: Map<string, Node>;
}

const GROUP_KIND = /^(.+)_(\d+)$/;

class IRParser {
  private readonly cur: TokenCursor;
  /** Blocks and subgraphs open around the current token. */
  private nesting = 0;
  constructor(private readonly source: string) {
    this.cur = new TokenCursor(new Lexer(source));
  }

  /** Runs `fn` one nesting level deeper; fails at `at` when that passes MAX_BLOCK_NESTING. */
  private nested<T>(at: Token, what: string, fn: () => T): T {
    if (this.nesting >= MAX_BLOCK_NESTING) this.cur.fail(`${what} nesting deeper than ${MAX_BLOCK_NESTING}`, at);
    this.nesting++;
    try {
      return fn();
    } finally {
      this.nesting--;
    }
  }

  parseTopLevel(): Graph {
    const graph = this.parseGraph(false);
    const t = this.cur.peek();
    if (t.kind !== 'eof') this.cur.fail(`expected end of input after the graph but found ${describeToken(t)}`, t);
    return graph;
  }

  private parseGraph(nested: boolean): Graph {
    const state: GraphState = { graph: new Graph(), definedNames: new Set(), pendingGroups: new Map() };
    const scope = new Scope(null);
    this.cur.expectIdent('graph');
    this.cur.expectPunct('(', "after 'graph'");
    if (!this.cur.isPunct(')')) {
      do {
        const { tok, type } = this.parseTypedName();
        this.defineValue(state, scope, tok, state.graph.addInput(undefined, type));
      } while (this.cur.acceptPunct(','));
    }
    this.cur.expectPunct(')', 'to close the graph inputs');
    this.cur.expectPunct(':', 'after the graph inputs');
    this.expectLineEnd();
    this.parseBody(state, state.graph.block, scope, 'return');
    this.cur.expectIdent('return');
    this.cur.expectPunct('(', "after 'return'");
    for (const v of this.parseValueList(scope, ')')) state.graph.registerOutput(v);
    this.cur.expectPunct(')', 'to close the return list');
    this.expectLineEnd();
    this.parseWithSections(state, nested);
    return state.graph;
  }

  private parseWithSections(state: GraphState, nested: boolean): void {
    for (;;) {
      if (!this.cur.isIdent('with')) return;
      const kindTok = this.cur.peek(1);
      if (nested && (state.pendingGroups.size === 0 || !state.pendingGroups.has(kindTok.text))) return;
      this.cur.next();
      const kind = this.cur.expectKind('qualified', 'a fusion group name such as prim::CudaFusionGroup_0');
      const node = state.pendingGroups.get(kind.text);
      const base = GROUP_KIND.exec(kind.text);
      if (node === undefined || base === null) return this.cur.fail(`no node refers to subgraph ${kind.text}`, kind);
      this.cur.expectPunct('=', `after '${kind.text}'`);
      const sub = this.nested(kind, 'subgraph', () => this.parseGraph(true));
      state.pendingGroups.delete(kind.text);
      node._setKind(base[1] as string);
      node.setG('Subgraph', sub);
    }
  }

  /** Nodes until the terminator (`return` at graph level, `->` in a block). */
  private parseBody(state: GraphState, block: Block, scope: Scope, terminator: 'return' | '->'): void {
    for (;;) {
      const t = this.cur.peek();
      if (terminator === 'return' && t.kind === 'ident' && t.text === 'return') return;
      if (terminator === '->' && t.kind === 'punct' && t.text === '->') return;
      if (t.kind === 'value' || (t.kind === 'punct' && t.text === '=')) {
        this.parseNode(state, block, scope);
        continue;
      }
      const expected = terminator === 'return' ? "a node or 'return (...)'" : "a node or '-> (...)' ending the block";
      if (t.kind === 'eof') this.cur.fail(`unexpected end of input: expected ${expected}`, t);
      this.cur.fail(`expected ${expected} but found ${describeToken(t)}`, t);
    }
  }

  private parseNode(state: GraphState, block: Block, scope: Scope): void {
    const outs: { tok: TokenOf<'value'>; type: JitType | null }[] = [];
    if (this.cur.peek().kind === 'value') {
      do {
        const tok = this.cur.expectKind('value', 'an output value');
        let type: JitType | null = null;
        if (this.cur.acceptPunct(':')) type = parseTypeAt(this.cur).type;
        outs.push({ tok, type });
      } while (this.cur.acceptPunct(','));
    }
    this.cur.expectPunct('=', 'after the node outputs');
    const kindTok = this.cur.expectKind('qualified', 'an operator kind such as aten::relu');
    const attributes = this.cur.isPunct('[') ? this.parseAttributes() : [];
    this.cur.expectPunct('(', `to open the inputs of ${kindTok.text}`);
    const inputs = this.parseValueList(scope, ')');
    this.cur.expectPunct(')', `to close the inputs of ${kindTok.text}`);
    const comment = this.expectLineEnd();

    this.checkOutputCount(kindTok, outs.length);
    const seen = new Set<string>();
    for (const o of outs) {
      if (seen.has(o.tok.text)) this.cur.fail(`%${o.tok.text} is defined twice in the same node`, o.tok);
      seen.add(o.tok.text);
    }
    const node = state.graph.create(kindTok.text, inputs, 0);
    for (const [name, value] of attributes) node.setAttribute(name, value);
    node.sourceRange = comment;
    if (GROUP_KIND.test(kindTok.text)) state.pendingGroups.set(kindTok.text, node);
    block.appendNode(node);
    for (const o of outs) {
      const type = o.type ?? (node.kind === 'prim::Constant' ? inferConstantType(node) : DynamicTensorType);
      this.defineValue(state, scope, o.tok, node.addOutput(type));
    }
    if (node.kind === 'prim::Constant') this.checkConstant(node, kindTok);
    // As in PyTorch's parser, the outputs are named before the blocks, so a block may use them.
    for (let t = this.cur.peek(); t.kind === 'ident' && /^block\d+$/.test(t.text); t = this.cur.peek()) {
      this.nested(t, 'block', () => this.parseBlock(state, node.addBlock(), scope));
    }
  }

  private checkOutputCount(kindTok: Token, count: number): void {
    if (kindTok.text === 'prim::Constant' && count !== 1) {
      this.cur.fail(`prim::Constant must have exactly one output, found ${count}`, kindTok);
    }
    const schemas = schemasFor(kindTok.text);
    if (schemas.length === 0 || schemas.some((s) => s.returns.length === count)) return;
    const expected = [...new Set(schemas.map((s) => s.returns.length))].join(' or ');
    this.cur.fail(`${kindTok.text} returns ${expected} value(s) according to its schema, but the node has ${count} output(s)`, kindTok);
  }

  /** A float-typed constant written as an integer (`value=1`) holds a float, as in PyTorch. */
  private checkConstant(node: Node, kindTok: Token): void {
    const a = node.attribute('value');
    const type = node.output().type;
    if (a?.kind === 'i' && type.kind === 'Float') node.setF('value', Number(a.value));
    // A Function constant names its function instead: `prim::Constant[name="fallback_function", fallback=1]()`.
    if (type.kind !== 'Function' && node.attributeNames().some((n) => n !== 'value')) this.cur.fail("prim::Constant only takes a 'value' attribute", kindTok);
  }

  private parseBlock(state: GraphState, block: Block, outer: Scope): void {
    this.cur.next();
    const scope = new Scope(outer);
    this.cur.expectPunct('(', 'after the block name');
    if (!this.cur.isPunct(')')) {
      do {
        const { tok, type } = this.parseTypedName();
        this.defineValue(state, scope, tok, block.addInput(undefined, type));
      } while (this.cur.acceptPunct(','));
    }
    this.cur.expectPunct(')', 'to close the block parameters');
    this.cur.expectPunct(':', 'after the block parameters');
    this.expectLineEnd();
    this.parseBody(state, block, scope, '->');
    this.cur.expectPunct('->');
    this.cur.expectPunct('(', "after '->'");
    for (const v of this.parseValueList(scope, ')')) block.registerOutput(v);
    this.cur.expectPunct(')', 'to close the block outputs');
    this.expectLineEnd();
  }

  private parseTypedName(): { tok: TokenOf<'value'>; type: JitType } {
    const tok = this.cur.expectKind('value', 'a value such as %x');
    const type = this.cur.acceptPunct(':') ? parseTypeAt(this.cur).type : DynamicTensorType;
    return { tok, type };
  }

  private defineValue(state: GraphState, scope: Scope, tok: TokenOf<'value'>, v: Value): void {
    const name = tok.text;
    if (state.definedNames.has(name)) this.cur.fail(`redefinition of %${name}`, tok);
    state.definedNames.add(name);
    scope.define(name, v);
    if (!/^[0-9]+$/.test(name)) v.setDebugName(name);
  }

  private parseValueList(scope: Scope, close: ')'): Value[] {
    const values: Value[] = [];
    if (this.cur.isPunct(close)) return values;
    do {
      const tok = this.cur.expectKind('value', 'a value such as %x');
      const v = scope.lookup(tok.text);
      if (v === undefined) this.cur.fail(`undefined value %${tok.text}`, tok);
      values.push(v);
    } while (this.cur.acceptPunct(','));
    return values;
  }

  /** Consumes the end of a line and returns its trailing comment, if any. */
  private expectLineEnd(): string | null {
    const t = this.cur.peek();
    if (t.kind === 'newline') {
      this.cur.next();
      return t.comment;
    }
    if (t.kind === 'eof') return null;
    return this.cur.fail(`expected end of line but found ${describeToken(t)}`, t);
  }

  // ---- attributes ----

  private parseAttributes(): [string, AttributeValue][] {
    this.cur.expectPunct('[');
    const attrs: [string, AttributeValue][] = [];
    const names = new Set<string>();
    if (!this.cur.isPunct(']')) {
      do {
        const nameTok = this.cur.peek();
        if (nameTok.kind !== 'ident' && nameTok.kind !== 'qualified') this.cur.fail(`expected an attribute name but found ${describeToken(nameTok)}`, nameTok);
        this.cur.next();
        const name = nameTok.text.startsWith('attr::') ? nameTok.text.slice(6) : nameTok.text;
        if (names.has(name)) this.cur.fail(`attribute '${name}' given twice`, nameTok);
        names.add(name);
        this.cur.expectPunct('=', `after attribute name '${name}'`);
        attrs.push([name, this.parseAttributeValue()]);
      } while (this.cur.acceptPunct(','));
    }
    this.cur.expectPunct(']', 'to close the attribute list');
    return attrs;
  }

  private parseAttributeValue(): AttributeValue {
    const t = this.cur.peek();
    switch (t.kind) {
      case 'int':
        this.cur.next();
        return { kind: 'i', value: int64FromToken(t, 'integer attribute') };
      case 'float':
        this.cur.next();
        return { kind: 'f', value: t.value };
      case 'string':
        this.cur.next();
        return { kind: 's', value: t.value };
      case 'ident':
        if (t.text === 'inf' || t.text === 'nan') {
          this.cur.next();
          return { kind: 'f', value: t.text === 'inf' ? Infinity : NaN };
        }
        return { kind: 'ty', value: parseTypeAt(this.cur).type };
      case 'punct':
        if (t.text === '[') return this.parseListAttribute();
        if (t.text === '{') return { kind: 't', value: this.parseTensorLiteral() };
        if (t.text === '<') {
          this.cur.next();
          const name = this.cur.expectIdent('Tensor');
          this.cur.expectPunct('>', `after '<${name.text}'`);
          return { kind: 't', value: { kind: 'opaque', text: '<Tensor>' } };
        }
        if (t.text === '(') return { kind: 'ty', value: parseTypeAt(this.cur).type };
        break;
      case 'qualified':
      case 'value':
      case 'newline':
      case 'eof':
        break;
    }
    return this.cur.fail(`expected an attribute value (number, string, list, tensor or type) but found ${describeToken(t)}`, t);
  }

  private parseListAttribute(): AttributeValue {
    this.cur.expectPunct('[');
    // A list of types (prim::CudaFusionGuard[types=[Float(2, 3, …), …]]): starts with a type name
    // or a tuple type's '('.
    const first = this.cur.peek();
    if ((first.kind === 'ident' && first.text !== 'inf' && first.text !== 'nan') || (first.kind === 'punct' && first.text === '(')) {
      const types: JitType[] = [];
      do types.push(parseTypeAt(this.cur).type);
      while (this.cur.acceptPunct(','));
      this.cur.expectPunct(']', 'to close the type list');
      return { kind: 'tys', value: types };
    }
    const items: Token[] = [];
    if (!this.cur.isPunct(']')) {
      do {
        const t = this.cur.next();
        if (t.kind === 'ident' && (t.text === 'inf' || t.text === 'nan')) {
          items.push({ ...t, kind: 'float', value: t.text === 'inf' ? Infinity : NaN });
          continue;
        }
        if (t.kind !== 'int' && t.kind !== 'float' && t.kind !== 'string') this.cur.fail(`expected a number or string in the list but found ${describeToken(t)}`, t);
        items.push(t);
      } while (this.cur.acceptPunct(','));
    }
    this.cur.expectPunct(']', 'to close the list');
    const strings: string[] = [];
    const intTokens: TokenOf<'int'>[] = [];
    const floats: number[] = [];
    for (const t of items) {
      if (t.kind === 'string') strings.push(t.value);
      else if (t.kind === 'int') {
        intTokens.push(t);
        floats.push(Number(t.text));
      } else if (t.kind === 'float') floats.push(t.value);
    }
    if (strings.length > 0 && strings.length !== items.length) this.cur.fail('a list attribute cannot mix strings and numbers', items[0]);
    if (strings.length > 0) return { kind: 'ss', value: strings };
    if (intTokens.length === items.length) return { kind: 'is', value: intTokens.map((t) => int64FromToken(t, 'integer list element')) };
    return { kind: 'fs', value: floats };
  }

  private parseTensorLiteral(): TensorLiteral {
    const open = this.cur.expectPunct('{');
    const first = this.cur.peek();
    if ((first.kind === 'int' || first.kind === 'float') && this.cur.isPunct('}', 1)) {
      this.cur.next();
      const close = this.cur.next();
      if (first.kind === 'float') return { kind: 'scalar', value: first.value, floating: true };
      const value = canonicalInteger(int64FromToken(first, 'integer tensor constant'));
      // A boxed integer beyond 2^53 keeps its exact text rather than a rounded number.
      if (typeof value === 'bigint') return { kind: 'opaque', text: this.source.slice(open.start, close.end) };
      return { kind: 'scalar', value, floating: false };
    }
    let depth = 1;
    for (;;) {
      const t = this.cur.next();
      if (t.kind === 'eof') this.cur.fail("unterminated tensor literal: expected '}'", open);
      if (t.kind === 'punct' && t.text === '{') depth++;
      if (t.kind === 'punct' && t.text === '}' && --depth === 0) {
        return { kind: 'opaque', text: this.source.slice(open.start, t.end).replace(/\s+/g, ' ') };
      }
    }
  }

  /** Turns API misuse detected while building (an IRError) into a ParseError at the current token. */
  wrap<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (e instanceof IRError) {
        const t = this.cur.peek();
        throw new ParseError(e.message, t.line, t.column);
      }
      throw e;
    }
  }
}

/** Parses graph text (PyTorch's dump format) into a Graph. Throws ParseError on malformed text. */
export function parseIR(text: string): Graph {
  const parser = new IRParser(text);
  return parser.wrap(() => parser.parseTopLevel());
}
