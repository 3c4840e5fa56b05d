// The CLI's line for an error no stage claims (not an input, definition, scheduling, lowering,
// compile or device error): a bug in tsfuser. One line naming the error; the stack only with
// TSFUSER_DEBUG=1, so a user's terminal never fills with one (nvFuser's NVF_ERROR prints the
// message and the source position, not a backtrace, unless asked).

/** `tsfuser: internal error (…): <name>: <message>`, or with `debug` the stack instead. */
export function internalErrorLine(e: unknown, debug: boolean): string {
  const text = e instanceof Error ? (debug ? (e.stack ?? `${e.name}: ${e.message}`) : `${e.name}: ${e.message}`) : String(e);
  return `tsfuser: internal error (a bug in tsfuser; TSFUSER_DEBUG=1 prints the stack): ${text}`;
}
