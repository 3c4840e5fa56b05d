// The CLI's side of the dump options (`--dump a,b`, NVFUSER_DUMP=a,b, TSFUSER_DUMP=a,b): the table
// and parser live in dumps/dump-options.ts; here a bad name becomes a UsageError (exit 2).

import { DumpOptionError, parseDumpList } from '../dumps/dump-options.js';
import { UsageError } from './console.js';

export { DUMP_OPTIONS, type DumpOption } from '../dumps/dump-options.js';

/** Parses a comma list; an unknown name is a UsageError listing the valid ones. */
export function parseDumpOptions(text: string | undefined, source: string): Set<string> {
  try {
    return parseDumpList(text, source);
  } catch (error) {
    if (error instanceof DumpOptionError) throw new UsageError(error.message);
    throw error;
  }
}

/** The dumps of --dump, NVFUSER_DUMP and TSFUSER_DUMP together. */
export function requestedDumps(env: Readonly<Record<string, string | undefined>>, flag: string | undefined): Set<string> {
  return new Set([...parseDumpOptions(env['NVFUSER_DUMP'], 'NVFUSER_DUMP'), ...parseDumpOptions(env['TSFUSER_DUMP'], 'TSFUSER_DUMP'), ...parseDumpOptions(flag, '--dump')]);
}
