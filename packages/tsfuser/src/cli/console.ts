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

/** A usage error (bad flag, missing file): exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
