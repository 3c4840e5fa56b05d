// Typed errors of @tsfuser/jit-ir: ParseError for malformed text (IR, types, schemas) and
// IRError for misuse of the graph mutation API (e.g. destroying a node whose outputs are used).

/** A malformed piece of text: IR, a type, or an operator schema. `line`/`column` are 1-based. */
export class ParseError extends Error {
  override readonly name = 'ParseError';
  constructor(
    readonly description: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${line}:${column}: ${description}`);
  }
}

/** Misuse of the graph API: the operation would leave the IR invalid. */
export class IRError extends Error {
  override readonly name = 'IRError';
}

/** `file:line:col: message`, the format compilers and editors understand. */
export function formatParseError(file: string, err: ParseError): string {
  return `${file}:${err.line}:${err.column}: ${err.description}`;
}
