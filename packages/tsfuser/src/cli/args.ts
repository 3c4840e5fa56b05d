// Minimal argv parsing: positionals, `--flag value`, `--flag=value` and boolean flags. Unknown
// flags are usage errors naming the flag.

import { UsageError } from './console.js';

export interface ParsedArgs {
  positionals: string[];
  values: Map<string, string>;
  booleans: Set<string>;
}

export function parseArgs(argv: readonly string[], valueFlags: readonly string[], booleanFlags: readonly string[]): ParsedArgs {
  const out: ParsedArgs = { positionals: [], values: new Map(), booleans: new Set() };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) {
      out.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    if (booleanFlags.includes(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      out.booleans.add(name);
    } else if (valueFlags.includes(name)) {
      const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      out.values.set(name, value);
    } else {
      throw new UsageError(`unknown option --${name} (see tsfuser --help)`);
    }
  }
  return out;
}
