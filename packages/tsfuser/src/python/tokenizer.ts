// Tokenizer for the python subset of nvFuser repro scripts: names, int/float literals, single-,
// double- and triple-quoted strings, operators, comments, implicit line joining inside
// brackets, backslash continuations, and INDENT/DEDENT from leading whitespace (tabs to 8).
//
// Line endings may be LF, CRLF or CR alone (each counts as one line); a leading UTF-8 byte order
// mark is skipped. Brackets nest at most MAX_BRACKET_DEPTH deep and blocks at most
// MAX_INDENT_DEPTH deep (CPython's own limits), so no later recursive pass can overflow.
//
// Invariant: every token carries the 1-based line/column where it starts; an error is a
// DefinitionImportError at the offending character.

import { DefinitionImportError } from '../errors.js';
import type { Token, TokenKind } from './tokens.js';

const THREE_CHAR_OPS = ['**=', '//=', '...'];
const TWO_CHAR_OPS = ['->', '**', '//', '==', '!=', '<=', '>=', '+=', '-=', '*=', '/=', ':='];
const ONE_CHAR_OPS = '()[]{},:.;=+-*/%<>@~&|^';
const CLOSING: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}' };

// Sticky: matched at a given position of the whole text, whatever the token's length.
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /0[xX][0-9a-fA-F_]+|(\d[\d_]*)?(\.\d[\d_]*|\.)?([eE][+-]?\d[\d_]*)?/y;

/**
 * What CPython's tokenizer refuses in a number the regex above accepts: an underscore that is not
 * between two digits (`1__0`, `1_`, `1_.5`), and leading zeros in a nonzero decimal integer
 * (`007`; `00`, `007.5` and `007e1` are fine). Null when CPython accepts it.
 */
export function cpythonLiteralProblem(lit: string): string | null {
  if (/^0[xX]/.test(lit)) {
    return /^0[xX]_?[0-9a-fA-F]+(?:_[0-9a-fA-F]+)*$/.test(lit) ? null : 'invalid hexadecimal literal';
  }
  const body = lit.replace(/[jJ]$/, '');
  // Every run of digits may hold single underscores between digits, nowhere else.
  if (/__|_$|_[.eE]|[.eE+-]_|^_/.test(body)) return 'invalid decimal literal';
  const isInteger = /^[\d_]+$/.test(body) && !/[jJ]$/.test(lit);
  if (isInteger && /^0[\d_]*[1-9]/.test(body)) return 'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers';
  return null;
}

/** Deepest bracket nesting accepted (CPython: "too many nested parentheses" past 200). */
export const MAX_BRACKET_DEPTH = 200;
/** Deepest block nesting accepted (CPython: "too many levels of indentation" past 100). */
export const MAX_INDENT_DEPTH = 100;

/** A character as an error message shows it: printable as itself, others escaped (`\n`, `\x00`). */
export function showChar(c: string): string {
  const named: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
  const code = c.codePointAt(0) ?? 0;
  if (named[c] !== undefined) return named[c];
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code === 0x2028 || code === 0x2029 || code === 0xfeff) return `\\u${code.toString(16)}`;
  return c;
}

/** Text as an error message shows it: every character through showChar. */
export function showText(text: string): string {
  return Array.from(text, showChar).join('');
}

/** The source with a leading BOM dropped and every CRLF or lone CR turned into LF (columns keep). */
export function normalizeSource(text: string): string {
  const body = text.startsWith('\ufeff') ? text.slice(1) : text;
  return body.replace(/\r\n?/g, '\n');
}

export function tokenize(source: string): Token[] {
  const text = normalizeSource(source);
  const tokens: Token[] = [];
  const indents = [0];
  let pos = 0;
  let line = 1;
  let lineStart = 0;
  let depth = 0;
  const open: { bracket: string; line: number; column: number }[] = [];
  let atLineStart = true;

  const col = (at: number): number => at - lineStart + 1;
  const push = (kind: TokenKind, value: string, at: number, atLine = line, atLineStartPos = lineStart): void => {
    tokens.push({ kind, text: value, line: atLine, column: at - atLineStartPos + 1 });
  };
  const fail = (message: string, at: number): never => {
    throw new DefinitionImportError(message, line, col(at));
  };

  while (pos <= text.length) {
    if (atLineStart && depth === 0) {
      // Measure indentation; blank and comment-only lines do not count.
      let width = 0;
      let p = pos;
      while (p < text.length && (text[p] === ' ' || text[p] === '\t' || text[p] === '\f')) {
        width = text[p] === '\t' ? (Math.floor(width / 8) + 1) * 8 : width + 1;
        p += 1;
      }
      const c = text[p];
      if (c === '\n' || c === '\r' || c === '#' || p >= text.length) {
        pos = p;
        if (p >= text.length) break;
        if (c === '#') while (pos < text.length && text[pos] !== '\n') pos += 1;
        if (text[pos] === '\r') pos += 1;
        if (text[pos] === '\n') pos += 1;
        line += 1;
        lineStart = pos;
        continue;
      }
      const current = indents[indents.length - 1] as number;
      if (width > current) {
        if (indents.length > MAX_INDENT_DEPTH) fail(`too many levels of indentation (limit ${MAX_INDENT_DEPTH})`, p);
        indents.push(width);
        push('indent', '', p);
      } else if (width < current) {
        while (width < (indents[indents.length - 1] as number)) {
          indents.pop();
          push('dedent', '', p);
        }
        if (width !== indents[indents.length - 1]) fail('unindent does not match any outer indentation level', p);
      }
      pos = p;
      atLineStart = false;
    }
    if (pos >= text.length) break;
    const c = text[pos] as string;
    if (c === ' ' || c === '\t' || c === '\f') {
      pos += 1;
    } else if (c === '#') {
      while (pos < text.length && text[pos] !== '\n') pos += 1;
    } else if (c === '\\' && (text[pos + 1] === '\n' || (text[pos + 1] === '\r' && text[pos + 2] === '\n'))) {
      pos += text[pos + 1] === '\r' ? 3 : 2;
      line += 1;
      lineStart = pos;
    } else if (c === '\n' || c === '\r') {
      if (depth === 0) push('newline', '', pos);
      if (c === '\r' && text[pos + 1] === '\n') pos += 1;
      pos += 1;
      line += 1;
      lineStart = pos;
      // Inside brackets a newline is whitespace (implicit line joining): no indentation there.
      atLineStart = depth === 0;
    } else if (/[A-Za-z_]/.test(c)) {
      NAME.lastIndex = pos;
      const m = NAME.exec(text) as RegExpExecArray;
      // String prefixes (r'', b'', f'') are not part of the subset: treat as names followed by strings.
      push('name', m[0], pos);
      pos += m[0].length;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(text[pos + 1] ?? ''))) {
      NUMBER.lastIndex = pos;
      const num = NUMBER.exec(text)?.[0] ?? '';
      // An imaginary literal (`2j`, `1.5J`) keeps its suffix; the parser makes it a complex number.
      const lit = num !== '' && /^[jJ]$/.test(text[pos + num.length] ?? '') && !/^0[xX]/.test(num) ? `${num}${text[pos + num.length] as string}` : num;
      if (lit === '' || /[A-Za-z_]/.test(text[pos + lit.length] ?? '')) {
        const shown = text.slice(pos, pos + 40).split(/[\s,)\]]/)[0] ?? c;
        fail(`invalid number literal '${showText(shown)}'`, pos);
      }
      const problem = cpythonLiteralProblem(lit);
      if (problem !== null) fail(`${problem}: '${showText(lit)}'`, pos);
      push('number', lit, pos);
      pos += lit.length;
    } else if (c === '"' || c === "'") {
      pos = readString(text, pos, (value, at, startLine, startLineStart) => push('string', value, at, startLine, startLineStart), line, lineStart, (l, ls) => {
        line = l;
        lineStart = ls;
      }, fail);
    } else {
      const three = text.slice(pos, pos + 3);
      const two = text.slice(pos, pos + 2);
      let op: string | undefined;
      if (THREE_CHAR_OPS.includes(three)) op = three;
      else if (TWO_CHAR_OPS.includes(two)) op = two;
      else if (ONE_CHAR_OPS.includes(c)) op = c;
      if (op === undefined) return fail(`unexpected character '${showChar(String.fromCodePoint(text.codePointAt(pos) ?? 0))}'`, pos);
      if (op === '(' || op === '[' || op === '{') {
        if (depth >= MAX_BRACKET_DEPTH) fail(`too many nested brackets (limit ${MAX_BRACKET_DEPTH})`, pos);
        depth += 1;
        open.push({ bracket: op, line, column: col(pos) });
      }
      if (op === ')' || op === ']' || op === '}') {
        const top = open.pop();
        if (top === undefined) return fail(`unmatched '${op}'`, pos);
        const expected = CLOSING[top.bracket];
        if (expected !== op) fail(`closing '${op}' does not match '${top.bracket}' opened at ${top.line}:${top.column}`, pos);
        depth -= 1;
      }
      push('op', op, pos);
      pos += op.length;
    }
  }
  const unclosed = open[open.length - 1];
  if (unclosed !== undefined) throw new DefinitionImportError(`'${unclosed.bracket}' was never closed`, unclosed.line, unclosed.column);
  const last = tokens[tokens.length - 1];
  if (last !== undefined && last.kind !== 'newline' && last.kind !== 'dedent') push('newline', '', pos);
  while (indents.length > 1) {
    indents.pop();
    push('dedent', '', pos);
  }
  push('eof', '', pos);
  return tokens;
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };

function readString(
  text: string,
  start: number,
  emit: (value: string, at: number, line: number, lineStart: number) => void,
  line0: number,
  lineStart0: number,
  setLine: (line: number, lineStart: number) => void,
  fail: (message: string, at: number) => never,
): number {
  const quote = text[start] as string;
  const triple = text.slice(start, start + 3) === quote.repeat(3);
  const close = triple ? quote.repeat(3) : quote;
  let pos = start + close.length;
  let line = line0;
  let lineStart = lineStart0;
  let value = '';
  for (;;) {
    if (pos >= text.length) return fail('unterminated string literal', start);
    if (text.startsWith(close, pos)) break;
    const c = text[pos] as string;
    if (c === '\n') {
      if (!triple) return fail('unterminated string literal', start);
      line += 1;
      lineStart = pos + 1;
    }
    if (c === '\\' && pos + 1 < text.length) {
      const e = text[pos + 1] as string;
      value += ESCAPES[e] ?? `\\${e}`;
      pos += 2;
      continue;
    }
    value += c;
    pos += 1;
  }
  emit(value, start, line0, lineStart0);
  setLine(line, lineStart);
  return pos + close.length;
}
