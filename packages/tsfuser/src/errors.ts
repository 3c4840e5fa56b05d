// Typed errors of the tsfuser frontend. Each names what went wrong and where: the op and
// parameter of a definition call, the input index at execute, the line and column of an
// imported nvFuser python definition.

/** A FusionDefinition call was given arguments it cannot accept (op, parameter, value). */
export class DefinitionError extends Error {
  override readonly name: string = 'DefinitionError';
}

/** fd.validate(): an output differs from its reference beyond tolerance (names the output and how). */
export class ValidationError extends Error {
  override readonly name: string = 'ValidationError';
  constructor(
    readonly outputIndex: number,
    readonly detail: string,
  ) {
    super(`output ${outputIndex}: ${detail}`);
  }
}

/** An execute() input does not fit the definition: names the input index and what differs. */
export class InputMismatchError extends Error {
  override readonly name: string = 'InputMismatchError';
  constructor(
    readonly inputIndex: number,
    readonly detail: string,
  ) {
    super(`input ${inputIndex}: ${detail}`);
  }
}

/** execute() was not given a list of inputs (null, an object, a string …). */
export class InputListError extends Error {
  override readonly name: string = 'InputListError';
}

/**
 * An input would need more memory than the documented limits allow (io/allocation-limits.ts):
 * refused before anything is allocated, with the size in the message and the input index when
 * one input is to blame.
 */
export class AllocationLimitError extends Error {
  override readonly name: string = 'AllocationLimitError';
  constructor(
    readonly inputIndex: number | null,
    readonly detail: string,
  ) {
    super(inputIndex === null ? detail : `input ${inputIndex}: ${detail}`);
  }
}

/**
 * An nvFuser python definition (or its `inputs` list) could not be imported: the counterpart of
 * Python's ImportError/SyntaxError, with the 1-based line and column of the offending token.
 */
export class DefinitionImportError extends Error {
  override readonly name: string = 'DefinitionImportError';
  constructor(
    readonly description: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${line}:${column}: ${description}`);
  }
}

/** `file:line:col: message`, the form compilers and editors understand. */
export function formatImportError(file: string, err: DefinitionImportError): string {
  return `${file}:${err.line}:${err.column}: ${err.description}`;
}

/** The requested backend cannot run (no GPU path yet, driver missing …). */
export class BackendUnavailableError extends Error {
  override readonly name: string = 'BackendUnavailableError';
}
