// One-time notes on stderr ("execute runs the reference evaluator"): each distinct note is
// printed at most once per process, so loops over execute() do not flood the terminal.

const printed = new Set<string>();

export type NoteSink = (message: string) => void;

export const stderrSink: NoteSink = (message) => {
  process.stderr.write(`${message}\n`);
};

/** Prints `message` through `sink` unless a note with this key was printed already. */
export function noteOnce(key: string, message: string, sink: NoteSink = stderrSink): void {
  if (printed.has(key)) return;
  printed.add(key);
  sink(message);
}
