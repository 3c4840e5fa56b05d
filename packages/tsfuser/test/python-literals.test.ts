// Number literals as CPython's tokenizer reads them: what `compile(s, '<s>', 'eval')` refuses
// (checked with CPython 3 when this was written: leading zeros in a nonzero decimal integer,
// underscores not between digits) is one DefinitionImportError at the literal; what it accepts
// tokenizes as one number. (`1._5` is refused by the generic check for a letter or underscore
// right after a number, with that check's wording.)

import { describe, expect, it } from 'vitest';
import { DefinitionImportError } from '../src/index.js';
import { tokenize } from '../src/python/tokenizer.js';

function numberToken(source: string): string {
  const tokens = tokenize(source);
  const first = tokens[0];
  if (first?.kind !== 'number' || tokens[1]?.kind === 'number') throw new Error(`'${source}' did not tokenize as one number`);
  return first.text;
}

function refusal(source: string): string {
  try {
    tokenize(`x = ${source}\n`);
  } catch (e) {
    if (e instanceof DefinitionImportError) return e.message;
    throw e;
  }
  throw new Error(`'${source}' was accepted`);
}

describe('CPython number literals', () => {
  it.each(['00', '0_0', '007.5', '007e1', '07j', '1_000', '0x_1f', '1e5_0', '1_0.2_5e1_0'])('%s is accepted', (lit) => {
    expect(numberToken(lit)).toBe(lit);
  });

  it.each([
    ['007', "1:5: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers: '007'"],
    ['0_7', "1:5: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers: '0_7'"],
    ['1__0', "1:5: invalid decimal literal: '1__0'"],
    ['1_', "1:5: invalid decimal literal: '1_'"],
    ['1_.5', "1:5: invalid decimal literal: '1_.5'"],
    ['1._5', "1:5: invalid number literal '1._5'"],
    ['1.5_', "1:5: invalid decimal literal: '1.5_'"],
    ['0x1__f', "1:5: invalid hexadecimal literal: '0x1__f'"],
  ])('%s is refused as CPython refuses it', (lit, message) => {
    expect(refusal(lit)).toBe(message);
  });
});
