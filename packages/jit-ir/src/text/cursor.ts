// A cursor over lexer tokens shared by the IR, type and schema parsers.
// Invariant: every failed expectation throws ParseError naming what was expected and what was found.

import { ParseError } from '../errors.js';
import { describeToken, type Punct, type Token, type TokenKind } from './lexer.js';

export type TokenOf<K extends TokenKind> = Extract<Token, { kind: K }>;

export class TokenCursor {
  private pos = 0;
  constructor(private readonly tokens: readonly Token[]) {
    if (tokens.length === 0 || tokens[tokens.length - 1]?.kind !== 'eof') {
      throw new ParseError('internal: token stream must end with eof', 1, 1);
    }
  }

  peek(ahead = 0): Token {
    const idx = Math.min(this.pos + ahead, this.tokens.length - 1);
    // The constructor guarantees a final eof token, so the clamped index is always valid.
    return this.tokens[idx] as Token;
  }

  next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.pos++;
    return t;
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
      this.pos++;
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
