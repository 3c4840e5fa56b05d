// The property every parseIR input must satisfy: it either parses to a graph whose printed text
// parses back to the same text (and copies to the same text), or raises one ParseError with a
// valid line:column and a one-line message. Anything else (RangeError, TypeError, IRError, a stack
// overflow, a print that does not re-parse) is a crash. A parsed graph must also survive the
// passes the graph fuser runs first (dead code, CSE, constant pooling) and still print text that
// parses. checkParseSchema is the same property for
// operator schemas (parseSchema / printSchema).

import { ParseError, constantPooling, eliminateCommonSubexpression, eliminateDeadCode, parseIR, parseSchema, printSchema, type Graph } from '../../src/index.js';

export type Verdict =
  | { readonly kind: 'parsed' }
  | { readonly kind: 'rejected'; readonly error: ParseError }
  | { readonly kind: 'crash'; readonly reason: string };

/** Control characters or line separators: a message containing one would break a terminal line. */
const NOT_ONE_LINE = /[\x00-\x1f\x7f\u2028\u2029]/;

function countLines(text: string): number {
  return text.split(/\r\n|\r|\n/).length;
}

function describeError(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message.slice(0, 300)}`;
  return `non-Error thrown: ${String(e).slice(0, 300)}`;
}

function checkRejection(text: string, e: unknown): Verdict {
  if (!(e instanceof ParseError)) return { kind: 'crash', reason: `parseIR threw ${describeError(e)}` };
  const { line, column, description } = e;
  if (!Number.isInteger(line) || !Number.isInteger(column) || line < 1 || column < 1) return { kind: 'crash', reason: `ParseError at invalid location ${line}:${column}` };
  if (line > countLines(text)) return { kind: 'crash', reason: `ParseError at line ${line} of a ${countLines(text)}-line text` };
  if (NOT_ONE_LINE.test(e.message)) return { kind: 'crash', reason: `ParseError message is not one printable line: ${JSON.stringify(description)}` };
  if (e.message !== `${line}:${column}: ${description}`) return { kind: 'crash', reason: `ParseError message ${JSON.stringify(e.message)} is not line:col: description` };
  return { kind: 'rejected', error: e };
}

export function checkParseIR(text: string): Verdict {
  let printed: string;
  try {
    const g = parseIR(text);
    printed = g.toString();
    if (g.copy().toString() !== printed) return { kind: 'crash', reason: 'copy() prints differently from the parsed graph' };
  } catch (e) {
    return checkRejection(text, e);
  }
  try {
    const again = parseIR(printed).toString();
    if (again !== printed) return { kind: 'crash', reason: 'print(parse(print(g))) differs from print(g)' };
  } catch (e) {
    return { kind: 'crash', reason: `the printed graph does not parse: ${describeError(e)}` };
  }
  return checkPasses(parseIR(printed));
}

function checkPasses(g: Graph): Verdict {
  let optimized: string;
  try {
    eliminateDeadCode(g);
    eliminateCommonSubexpression(g);
    constantPooling(g);
    optimized = g.toString();
  } catch (e) {
    return { kind: 'crash', reason: `a pass failed on a parsed graph: ${describeError(e)}` };
  }
  try {
    parseIR(optimized);
  } catch (e) {
    return { kind: 'crash', reason: `the graph after the passes does not parse: ${describeError(e)}` };
  }
  return { kind: 'parsed' };
}

export function checkParseSchema(text: string): Verdict {
  let printed: string;
  try {
    printed = printSchema(parseSchema(text));
  } catch (e) {
    return checkRejection(text, e);
  }
  try {
    const again = printSchema(parseSchema(printed));
    if (again !== printed) return { kind: 'crash', reason: 'printSchema(parseSchema(printSchema(s))) differs from printSchema(s)' };
  } catch (e) {
    return { kind: 'crash', reason: `the printed schema does not parse: ${describeError(e)}` };
  }
  return { kind: 'parsed' };
}
