// A cursor over lexer tokens shared by the IR, type and schema parsers.
// Invariant: every failed expectation throws ParseError naming what was expected and what was found.

import { ParseError } from '../errors.js';
import { Lexer, describeToken, type Punct, type Token, type TokenKind } from './lexer.js';

export type TokenOf<K extends TokenKind> = Extract<Token, { kind: K }>;

export class TokenCursor {
  /** Tokens read from the lexer and not yet consumed, from `head` on (a lexer source only). */
  private buffer: Token[] = [];
  private head = 0;
  private pos = 0;
  private readonly tokens: readonly Token[] | null;
  private readonly lexer: Lexer | null;

  /** Over a token array ending in `eof`, or over a lexer read as the parser advances. */
  constructor(source: readonly Token[] | Lexer) {
    if (source instanceof Lexer) {
      this.tokens = null;
      this.lexer = source;
      return;
    }
    this.tokens = source;
    this.lexer = null;
    if (source.length === 0 || source[source.length - 1]?.kind !== 'eof') {
      throw new ParseError('internal: token stream must end with eof', 1, 1);
    }
  }

  peek(ahead = 0): Token {
    if (this.lexer !== null) {
      // The lexer repeats its eof token, so reading past the end is the clamp.
      while (this.buffer.length - this.head <= ahead) this.buffer.push(this.lexer.next());
      return this.buffer[this.head + ahead] as Token;
    }
    const tokens = this.tokens as readonly Token[];
    const idx = Math.min(this.pos + ahead, tokens.length - 1);
    // The constructor guarantees a final eof token, so the clamped index is always valid.
    return tokens[idx] as Token;
  }

  next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.advance();
    return t;
  }

  private advance(): void {
    if (this.lexer === null) {
      this.pos++;
      return;
    }
    this.head++;
    // Drop consumed tokens now and then, so the buffer stays a few tokens long.
    if (this.head >= 64) {
      this.buffer = this.buffer.slice(this.head);
      this.head = 0;
    }
  }

  isPunct(p: Punct, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'punct' && t.text === p;
  }

  isIdent(text?: string): boolean {
    const t = this.peek();
    return t.kind === 'ident' && (text === undefined || t.text === text);
  }

  acceptPunct(p: Punct): boolean {
    if (this.isPunct(p)) {
      this.advance();
      return true;
    }
    return false;
  }

  expectPunct(p: Punct, context?: string): Token {
    const t = this.peek();
    if (t.kind === 'punct' && t.text === p) return this.next();
    return this.fail(`expected '${p}'${context ? ` ${context}` : ''} but found ${describeToken(t)}`, t);
  }

  expectKind<K extends TokenKind>(kind: K, what: string): TokenOf<K> {
    const t = this.peek();
    if (t.kind === kind) {
      this.next();
      return t as TokenOf<K>;
    }
    return this.fail(`expected ${what} but found ${describeToken(t)}`, t);
  }

  expectIdent(text: string): Token {
    const t = this.peek();
    if (t.kind === 'ident' && t.text === text) return this.next();
    return this.fail(`expected '${text}' but found ${describeToken(t)}`, t);
  }

  fail(message: string, at: Token = this.peek()): never {
    throw new ParseError(message, at.line, at.column);
  }
}
