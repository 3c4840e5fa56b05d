// `tsfuser ir print <file.ir>`: parses a TorchScript IR file with @tsfuser/jit-ir and prints it
// back; a malformed file prints `file:line:col: message` and fails.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ParseError, formatParseError, parseIR, printGraph } from '@tsfuser/jit-ir';
import type { ParsedArgs } from './args.js';
import { UsageError, type CliIo } from './console.js';

export function irCommand(args: ParsedArgs, io: CliIo): number {
  const [sub, file, extra] = args.positionals;
  if (sub !== 'print') throw new UsageError(`tsfuser ir: unknown subcommand '${sub ?? ''}' (expected: tsfuser ir print <file.ir>)`);
  if (file === undefined) throw new UsageError('tsfuser ir print: missing <file.ir>');
  if (extra !== undefined) throw new UsageError(`tsfuser ir print: unexpected argument '${extra}'`);
  let text: string;
  try {
    text = readFileSync(resolve(io.cwd, file), 'utf8');
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  try {
    io.stdout(printGraph(parseIR(text)));
    return 0;
  } catch (e) {
    if (e instanceof ParseError) {
      io.stderr(`${formatParseError(file, e)}\n`);
      return 1;
    }
    throw e;
  }
}
