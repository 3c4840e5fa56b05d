// Typed errors of the orchestration (the device layer's own are @tsfuser/device's errors.ts).

/** Arguments of an execute call that do not fit the fusion (count, kind, dtype, rank, sizes). */
export class ExecutorInputError extends Error {
  override readonly name: string = 'ExecutorInputError';
}

/**
 * Two input dims the fusion treats as one dim got different sizes (extent-groups.ts, checked on
 * each new layout): `input` is the later input, `detail` names both. A frontend reports it as its
 * own input error without checking the extents again on every call.
 */
export class InputExtentMismatchError extends ExecutorInputError {
  override readonly name: string = 'InputExtentMismatchError';
  constructor(
    readonly input: number,
    readonly detail: string,
  ) {
    super(`input ${input}: ${detail}`);
  }
}
