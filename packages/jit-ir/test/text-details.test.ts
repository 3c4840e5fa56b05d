// Text-level details of parseIR: line ends (\n, \r\n, lone \r), a UTF-8 byte-order mark, escaped
// characters in error messages, and PyTorch's `string` spelling of the string type.
import { describe, expect, it } from 'vitest';
import { ParseError, StringType, parseIR, parseType, printType, quoteForMessage } from '../src/index.js';

function parseError(fn: () => unknown): ParseError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ParseError) return e;
    throw new Error(`expected ParseError, got ${String(e)}`);
  }
  throw new Error('expected a ParseError, but the text parsed');
}

const LINES = ['graph(%x : Tensor):', '  %y : Tensor = aten::relu(%x) # m.py:2:4', '  %z : Tensor = aten::relu(%q)', '  return (%z)', ''];

describe('line ends', () => {
  it.each([
    ['\\n', '\n'],
    ['\\r\\n', '\r\n'],
    ['lone \\r', '\r'],
  ])('%s: errors name the right line and column', (_name, eol) => {
    const err = parseError(() => parseIR(LINES.join(eol)));
    expect(err.description).toBe('undefined value %q');
    expect([err.line, err.column]).toEqual([3, 28]);
  });

  it('CR-only and CRLF text parse to the same graph as LF text, comments included', () => {
    const good = LINES.join('\n').replace('%q', '%y');
    const printed = parseIR(good).toString();
    expect(parseIR(good.replace(/\n/g, '\r')).toString()).toBe(printed);
    expect(parseIR(good.replace(/\n/g, '\r\n')).toString()).toBe(printed);
    expect(printed).toContain('# m.py:2:4');
  });

  it('a string literal cannot run past a lone \\r', () => {
    const err = parseError(() => parseIR('graph():\r  %a : str = prim::Constant[value="ab\r"]()\r  return (%a)\r'));
    expect(err.description).toBe('unterminated string literal');
    expect([err.line, err.column]).toEqual([2, 35]);
  });
});

describe('byte-order mark', () => {
  it('a UTF-8 BOM at the start is skipped; columns on line 1 do not count it', () => {
    const text = 'graph(%x : Tensor):\n  return (%x)\n';
    expect(parseIR(`\ufeff${text}`).toString()).toBe(parseIR(text).toString());
    const err = parseError(() => parseIR('\ufeffgraph(%x : Flaot):\n  return (%x)\n'));
    expect([err.line, err.column]).toEqual([1, 12]);
  });

  it('a BOM anywhere else is an unexpected character, shown escaped', () => {
    const err = parseError(() => parseIR('graph(%x : Tensor):\n  \ufeffreturn (%x)\n'));
    expect(err.description).toBe("unexpected character '\\ufeff'");
    expect([err.line, err.column]).toEqual([2, 3]);
  });
});

describe('characters quoted in messages are escaped', () => {
  it.each([
    ['newline', '\n', "'\\n'"],
    ['tab', '\t', "'\\t'"],
    ['NUL', '\0', "'\\u0000'"],
    ['line separator', '\u2028', "'\\u2028'"],
    ['emoji', '\u{1f600}', "'\\u{1f600}'"],
    ['quote', "'", "'\\''"],
    ['backslash', '\\', "'\\\\'"],
    ['plain', 'a$', "'a$'"],
  ])('quoteForMessage(%s)', (_name, text, quoted) => {
    expect(quoteForMessage(text)).toBe(quoted);
  });

  it.each(['\0', '\u0007', '\u2028', '\u{1f600}', '\u00a0', '\\', '`', '@'])('unexpected character %j gives a one-line printable message', (ch) => {
    const err = parseError(() => parseIR(`graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x) ${ch}\n  return (%y)\n`));
    expect(err.description).toBe(`unexpected character ${quoteForMessage(ch)}`);
    expect(err.message).toMatch(/^[\x20-\x7e]+$/);
    expect([err.line, err.column]).toEqual([2, 32]);
  });

  it('a string token in a message is quoted with escapes', () => {
    const err = parseError(() => parseIR('graph(%x : Tensor):\n  %y : Tensor = aten::relu("a\\nb")\n  return (%y)\n'));
    expect(err.description).toBe("expected a value such as %x but found string 'a\\nb'");
    expect(err.message).toMatch(/^[\x20-\x7e]+$/);
  });

  it('the end of a line is named, not printed', () => {
    const err = parseError(() => parseType('Float(2,'));
    expect(err.description).toMatch(/but found end of (line|input)$/);
  });
});

describe('the string type', () => {
  it("accepts PyTorch's spellings `str` and `string`, prints `str`", () => {
    expect(parseType('str')).toEqual(StringType);
    expect(parseType('string')).toEqual(StringType);
    expect(printType(parseType('string[]?'))).toBe('str[]?');
  });

  it('parses the graph of PyTorch\'s own IR tests that types constants as `string`', () => {
    const text = [
      'graph(%cond : Tensor):',
      '  %a : string = prim::Constant[value="bcd"]()',
      '  %2 : bool = prim::Bool(%cond)',
      '  %b : string = prim::If(%2)',
      '    block0():',
      '      %b.1 : string = prim::Constant[value="abc"]()',
      '      -> (%b.1)',
      '    block1():',
      '      -> (%a)',
      '  return (%b)',
      '',
    ].join('\n');
    const first = parseIR(text).toString();
    expect(first).toBe(text.replace(/: string/g, ': str'));
    expect(parseIR(first).toString()).toBe(first);
    expect(parseIR(text).outputs[0]?.type).toEqual(StringType);
  });
});
