// Where the CLI writes: stdout for results and dumps, stderr for notes, progress and errors.
// Tests pass their own sinks to capture output; colour is used only when stdout is a TTY.

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  /** Colour output (stdout is a terminal and NO_COLOR is unset). */
  colour: boolean;
  cwd: string;
}

export function processIo(): CliIo {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    env: process.env,
    colour: process.stdout.isTTY === true && process.env['NO_COLOR'] === undefined,
    cwd: process.cwd(),
  };
}

export function paint(io: CliIo, code: 'green' | 'red' | 'yellow' | 'dim', text: string): string {
  if (!io.colour) return text;
  const codes = { green: 32, red: 31, yellow: 33, dim: 2 } as const;
  return `\u001b[${codes[code]}m${text}\u001b[0m`;
}

/** The part of a stream the broken-pipe handler needs (process.stdout, or a test's emitter). */
export interface ErrorEmitter {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Makes a closed reader (`tsfuser ir print big.ir | head`) end the CLI quietly: EPIPE on
 * `stream` calls `exit(0)` (the reader has what it asked for); any other write error is one line
 * on `report` and `exit(1)`. Without a listener Node turns the error into an uncaught stack trace.
 */
export function exitQuietlyOnBrokenPipe(stream: ErrorEmitter, exit: (code: number) => void, report: (text: string) => void): void {
  stream.on('error', (error) => {
    if ('code' in error && error.code === 'EPIPE') {
      exit(0);
      return;
    }
    report(`tsfuser: cannot write the output: ${error.message}\n`);
    exit(1);
  });
}

/** A usage error (bad flag, missing file): exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
