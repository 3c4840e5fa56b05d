// Lexer for the TorchScript IR text format, types and operator schemas.
// In: source text. Out: tokens ending in one `eof` token, one at a time (Lexer) or as an array.
// Invariant: every malformed character sequence becomes a ParseError with its line:column;
// newlines inside (), [] or {} are dropped, blank lines collapse into one `newline` token, and a
// trailing `# ...` comment is attached to the newline that ends its line. Line ends may be
// `\n`, `\r\n` or a lone `\r`; a UTF-8 byte-order mark at the start is skipped. Characters quoted
// in messages are escaped (`'\n'`, `'\u0000'`), so a message is always one printable line.

import { ParseError } from '../errors.js';

export type Punct = '(' | ')' | '[' | ']' | '{' | '}' | ',' | ':' | '=' | '?' | '*' | '->' | '!' | '|' | '.' | '<' | '>';

interface TokenBase {
  readonly line: number;
  readonly column: number;
  /** Offsets into the source, for raw-text slices (tensor literals). */
  readonly start: number;
  readonly end: number;
}

export type Token =
  | (TokenBase & { readonly kind: 'ident'; readonly text: string })
  | (TokenBase & { readonly kind: 'qualified'; readonly text: string })
  | (TokenBase & { readonly kind: 'value'; readonly text: string })
  | (TokenBase & { readonly kind: 'int'; readonly text: string })
  | (TokenBase & { readonly kind: 'float'; readonly text: string; readonly value: number })
  | (TokenBase & { readonly kind: 'string'; readonly text: string; readonly value: string })
  | (TokenBase & { readonly kind: 'punct'; readonly text: Punct })
  | (TokenBase & { readonly kind: 'newline'; readonly text: string; readonly comment: string | null })
  | (TokenBase & { readonly kind: 'eof'; readonly text: string });

export type TokenKind = Token['kind'];

const PUNCT_CHARS = new Set(['(', ')', '[', ']', '{', '}', ',', ':', '=', '?', '*', '!', '|', '.', '<', '>']);

function isIdentStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
}
function isIdentChar(c: string): boolean {
  return isIdentStart(c) || isDigit(c);
}
function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}
/** isIdentChar on a UTF-16 code (the hot loops read codes: no one-character strings). */
function isIdentCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || (c >= 48 && c <= 57);
}
/** A character of a value name (`%x.1`): an identifier character or '.'. */
function isValueNameCode(c: number): boolean {
  return isIdentCode(c) || c === 46;
}

export function describeToken(t: Token): string {
  switch (t.kind) {
    case 'eof':
      return 'end of input';
    case 'newline':
      return 'end of line';
    case 'string':
      return `string ${quoteForMessage(t.value)}`;
    case 'value':
      return `'%${t.text}'`;
    case 'ident':
    case 'qualified':
    case 'int':
    case 'float':
    case 'punct':
      return `'${t.text}'`;
  }
}

/**
 * `text` quoted for an error message with every character outside printable ASCII escaped
 * (`'\n'`, `'\t'`, `'\u00a0'`, `'\u{1f600}'`), so the message stays one readable line.
 */
export function quoteForMessage(text: string): string {
  let out = "'";
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === "'" || ch === '\\') out += `\\${ch}`;
    else if (code >= 0x20 && code < 0x7f) out += ch;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\u{${code.toString(16)}}`;
  }
  return out + "'";
}

const BYTE_ORDER_MARK = '\ufeff';

/**
 * Produces the tokens of `src` one at a time, so a parser holds only the few it looks ahead at
 * (a 20,000-node graph is about 500,000 tokens: held all at once, they outlive every young-
 * generation collection and the GC copies them twice). After the `eof` token, `next()` keeps
 * returning it.
 */
export class Lexer {
  private i: number;
  private line = 1;
  private lineStart: number;
  private depth = 0;
  private pendingComment: string | null = null;
  private lastKind: TokenKind | null = null;
  private eof: Token | null = null;

  constructor(private readonly src: string) {
    this.i = src.startsWith(BYTE_ORDER_MARK) ? 1 : 0;
    this.lineStart = this.i;
  }

  private col(at: number): number {
    return at - this.lineStart + 1;
  }

  private fail(msg: string, at: number): never {
    throw new ParseError(msg, this.line, this.col(at));
  }

  next(): Token {
    const t = this.scan();
    this.lastKind = t.kind;
    return t;
  }

  private scan(): Token {
    if (this.eof !== null) return this.eof;
    const src = this.src;
    const fail = (msg: string, at: number): never => this.fail(msg, at);
    while (this.i < src.length) {
      const i = this.i;
      const line = this.line;
      const c = src.charAt(i);
      if (c === '\n' || c === '\r') {
        // `\r\n` is one line end; a lone `\r` (old Mac files) is one too.
        const width = c === '\r' && src.charAt(i + 1) === '\n' ? 2 : 1;
        const emit = this.depth === 0 && this.lastKind !== null && this.lastKind !== 'newline';
        const comment = this.pendingComment;
        const column = this.col(i);
        this.pendingComment = null;
        this.i = i + width;
        this.line++;
        this.lineStart = this.i;
        if (emit) return { kind: 'newline', text: '\n', comment, line, column, start: i, end: i + width };
        continue;
      }
      if (c === ' ' || c === '\t') {
        this.i = i + 1;
        continue;
      }
      if (c === '#') {
        let j = i + 1;
        while (j < src.length && src.charAt(j) !== '\n' && src.charAt(j) !== '\r') j++;
        const text = src.slice(i + 1, j).trim();
        if (this.depth === 0 && this.lastKind !== null && this.lastKind !== 'newline') this.pendingComment = text;
        this.i = j;
        continue;
      }
      const start = i;
      const column = this.col(i);
      if (c === '%') {
        let j = i + 1;
        while (j < src.length && isValueNameCode(src.charCodeAt(j))) j++;
        if (j === i + 1) fail("expected a value name after '%'", i);
        this.i = j;
        return { kind: 'value', text: src.slice(i + 1, j), line, column, start, end: j };
      }
      if (c === '"' || c === "'") {
        const { value, end } = lexString(src, i, fail);
        this.i = end;
        return { kind: 'string', text: src.slice(i, end), value, line, column, start, end };
      }
      if (isDigit(c) || (c === '-' && i + 1 < src.length && (isDigit(src.charAt(i + 1)) || src.charAt(i + 1) === '.'))) {
        const end = scanNumber(src, i);
        const text = src.slice(i, end);
        if (text === '-' || text === '-.' || text === '.') fail(`malformed number ${quoteForMessage(text)}`, i);
        if (end < src.length && isIdentStart(src.charAt(end))) fail(`malformed number ${quoteForMessage(text + src.charAt(end))}`, i);
        this.i = end;
        if (/[.eE]/.test(text)) {
          const value = Number(text.endsWith('.') ? text.slice(0, -1) : text);
          if (Number.isNaN(value)) fail(`malformed number ${quoteForMessage(text)}`, i);
          return { kind: 'float', text, value, line, column, start, end };
        }
        // Integers keep their text; BigInt/Number conversion happens where the value is used.
        return { kind: 'int', text, line, column, start, end };
      }
      if (c === '-' && src.startsWith('-inf', i) && !isIdentChar(src.charAt(i + 4))) {
        this.i = i + 4;
        return { kind: 'float', text: '-inf', value: -Infinity, line, column, start, end: i + 4 };
      }
      if (isIdentStart(c)) {
        let j = i + 1;
        while (j < src.length && isIdentCode(src.charCodeAt(j))) j++;
        if (src.startsWith('::', j) && j + 2 < src.length && isIdentStart(src.charAt(j + 2))) {
          j += 2;
          while (j < src.length && isIdentCode(src.charCodeAt(j))) j++;
          this.i = j;
          return { kind: 'qualified', text: src.slice(i, j), line, column, start, end: j };
        }
        this.i = j;
        return { kind: 'ident', text: src.slice(i, j), line, column, start, end: j };
      }
      if (c === '-' && src.charAt(i + 1) === '>') {
        this.i = i + 2;
        return { kind: 'punct', text: '->', line, column, start, end: i + 2 };
      }
      if (PUNCT_CHARS.has(c)) {
        if (c === '(' || c === '[' || c === '{') this.depth++;
        if ((c === ')' || c === ']' || c === '}') && this.depth > 0) this.depth--;
        this.i = i + 1;
        return { kind: 'punct', text: c as Punct, line, column, start, end: i + 1 };
      }
      fail(`unexpected character ${quoteForMessage(String.fromCodePoint(src.codePointAt(i) ?? 0))}`, i);
    }
    const at = this.i;
    if (this.lastKind !== null && this.lastKind !== 'newline') {
      return { kind: 'newline', text: '\n', comment: this.pendingComment, line: this.line, column: this.col(at), start: at, end: at };
    }
    this.eof = { kind: 'eof', text: '', line: this.line, column: this.col(at), start: at, end: at };
    return this.eof;
  }
}

/** Every token of `src`, ending in one `eof` token. */
export function tokenize(src: string): Token[] {
  const lexer = new Lexer(src);
  const tokens: Token[] = [];
  for (let t = lexer.next(); ; t = lexer.next()) {
    tokens.push(t);
    if (t.kind === 'eof') return tokens;
  }
}

function scanNumber(src: string, from: number): number {
  let j = from;
  if (src.charAt(j) === '-') j++;
  while (j < src.length && isDigit(src.charAt(j))) j++;
  if (src.charAt(j) === '.') {
    j++;
    while (j < src.length && isDigit(src.charAt(j))) j++;
  }
  if (src.charAt(j) === 'e' || src.charAt(j) === 'E') {
    let k = j + 1;
    if (src.charAt(k) === '+' || src.charAt(k) === '-') k++;
    if (isDigit(src.charAt(k))) {
      while (k < src.length && isDigit(src.charAt(k))) k++;
      j = k;
    }
  }
  return j;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  v: '\v',
  a: '\x07',
  '\\': '\\',
  '"': '"',
  "'": "'",
};

function lexString(src: string, from: number, fail: (msg: string, at: number) => never): { value: string; end: number } {
  const quote = src.charAt(from);
  let j = from + 1;
  let value = '';
  while (j < src.length) {
    const c = src.charAt(j);
    if (c === quote) return { value, end: j + 1 };
    if (c === '\n' || c === '\r') break;
    if (c === '\\') {
      const e = src.charAt(j + 1);
      const simple = SIMPLE_ESCAPES[e];
      if (simple !== undefined) {
        value += simple;
        j += 2;
        continue;
      }
      const octal = /^[0-7]{1,3}/.exec(src.slice(j + 1, j + 4));
      if (octal) {
        value += String.fromCharCode(parseInt(octal[0], 8));
        j += 1 + octal[0].length;
        continue;
      }
      fail(`unknown escape sequence ${quoteForMessage(`\\${e}`)} in string`, j);
    }
    value += c;
    j++;
  }
  return fail('unterminated string literal', from);
}

/** Quotes a string the way c10::printQuotedString does. */
export function quoteString(s: string): string {
  let out = '"';
  for (const ch of s) {
    switch (ch) {
      case '\\':
        out += '\\\\';
        break;
      case '"':
        out += '\\"';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\v':
        out += '\\v';
        break;
      default: {
        const code = ch.codePointAt(0) ?? 0;
        if (code < 0x20 || code === 0x7f) out += '\\' + code.toString(8).padStart(3, '0');
        else out += ch;
      }
    }
  }
  return out + '"';
}
