// Tokens of the python subset nvFuser's python_definition dumps and repro scripts use.

export type TokenKind = 'name' | 'number' | 'string' | 'op' | 'newline' | 'indent' | 'dedent' | 'eof';

export interface Position {
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
}

export interface Token extends Position {
  readonly kind: TokenKind;
  /** Source text (names, numbers, operators) or the decoded value (strings). */
  readonly text: string;
}
