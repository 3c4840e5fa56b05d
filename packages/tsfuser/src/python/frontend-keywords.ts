// Keyword arguments nvFuser's own python printer writes into every dump but tsfuser's op table
// does not carry as parameters: `slice(…, manual_normalization=0)`, `squeeze(…,
// squeeze_expanded=False)`, `cat(…, manual_padding=0)`. nvFuser prints these bools as `0`/`1`
// or `False`/`True`; the importer accepts both spellings and checks the value here, then drops
// the keyword before binding the op's own parameters.
//
// Invariant: a keyword is accepted only with a value whose nvFuser semantics tsfuser's op
// reproduces; any other value is an error naming op, keyword and value. An op-table parameter of
// the same name always takes precedence over an entry here.

import { describeValue } from './definition-checks.js';

export interface FrontendKeyword {
  /** nvFuser's python keyword. */
  readonly python: string;
  /** nvFuser's default. */
  readonly default: boolean;
  /** The values tsfuser's op implements with nvFuser's meaning. */
  readonly accepted: readonly boolean[];
  /** Why the values outside `accepted` are refused, or how accepted ones behave. */
  readonly note: string;
}

/** By op python name. */
export const FRONTEND_KEYWORDS: Readonly<Record<string, readonly FrontendKeyword[]>> = {
  slice: [
    {
      python: 'manual_normalization',
      default: false,
      accepted: [false, true],
      note: 'tsfuser always normalizes slice indices (negative → from the end, clamped to the extent); with manual_normalization=True nvFuser expects them already normalized, which normalizing leaves unchanged',
    },
  ],
  squeeze: [
    {
      python: 'squeeze_expanded',
      default: false,
      accepted: [false, true],
      note: 'tsfuser squeezes only dims of size 1; an expanded dim of another size is refused whatever the keyword says',
    },
  ],
  cat: [
    {
      python: 'manual_padding',
      default: false,
      accepted: [false],
      note: 'tsfuser pads the inputs itself and does not take inputs already padded to the output extent',
    },
  ],
};

export type KeywordCheck = { readonly ok: true } | { readonly ok: false; readonly message: string };

/** A python bool, or the `0`/`1` nvFuser's printer writes for one; null for anything else. */
export function pythonFlag(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (v === 0 || v === 1) return v === 1;
  return null;
}

/** Checks `op(…, keyword=value)` against the table entry `k`. */
export function checkFrontendKeyword(op: string, k: FrontendKeyword, value: unknown): KeywordCheck {
  const flag = pythonFlag(value);
  if (flag === null) return { ok: false, message: `fd.ops.${op}(): ${k.python} takes True/False (or 1/0), got ${describeValue(value)}` };
  if (!k.accepted.includes(flag)) return { ok: false, message: `fd.ops.${op}(): ${k.python}=${flag ? 'True' : 'False'} is not supported: ${k.note}` };
  return { ok: true };
}
