// The CLI's line for an error no stage claims: one line, no stack, unless TSFUSER_DEBUG=1.
import { describe, expect, it } from 'vitest';
import { internalErrorLine } from '../src/cli/internal-error.js';

describe('internalErrorLine', () => {
  it('names the error in one line without the stack; the stack with debug', () => {
    const e = new TypeError('t.dispose is not a function');
    const line = internalErrorLine(e, false);
    expect(line).toBe('tsfuser: internal error (a bug in tsfuser; TSFUSER_DEBUG=1 prints the stack): TypeError: t.dispose is not a function');
    expect(line).not.toMatch(/\n|\bat /);
    expect(internalErrorLine(e, true)).toMatch(/\n\s+at /);
    expect(internalErrorLine('thrown string', false)).toMatch(/: thrown string$/);
  });
});
