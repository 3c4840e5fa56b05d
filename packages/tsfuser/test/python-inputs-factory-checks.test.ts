// Factory values and sizes on the inputs line checked as PyTorch checks them: torch.full's fill
// value must fit the dtype (c10's "value cannot be converted to type … without overflow", as
// PyTorch 2.13 raises for each case below), and a factory too large to make is refused at once
// with its size in the message (these ended in a stack trace or wrapped silently).

import { describe, expect, it } from 'vitest';
import { AllocationLimitError, DefinitionImportError, InputMismatchError } from '../src/index.js';
import { parsePython } from '../src/python/parser.js';
import { evalInputList } from '../src/python/torch-inputs.js';
import { materializeInput } from '../src/io/input-generation.js';
import { Random } from '../src/io/random.js';

function evaluate(line: string): void {
  const stmts = parsePython(`inputs = [${line}]\n`);
  const s = stmts[0];
  if (s?.kind !== 'assign') throw new Error('not an assignment');
  const specs = evalInputList(s.value, () => undefined);
  const rng = new Random(0);
  for (const spec of specs) materializeInput(spec, rng);
}

function message(line: string): string {
  try {
    evaluate(line);
  } catch (e) {
    if (e instanceof DefinitionImportError || e instanceof AllocationLimitError || e instanceof InputMismatchError) return e.message;
    return `uncaught ${e instanceof Error ? e.name : typeof e}: ${String(e)}`;
  }
  return 'accepted';
}

describe('torch.full fill values (PyTorch 2.13 raises on each)', () => {
  it.each([
    ['torch.full((3,), 1e40)', 'value cannot be converted to type float without overflow'],
    ["torch.full((2,), float('nan'), dtype=torch.int64)", 'value cannot be converted to type int64_t without overflow'],
    ['torch.full((2,), 1e30, dtype=torch.int64)', 'value cannot be converted to type int64_t without overflow'],
    ['torch.full((2,), 70000., dtype=torch.float16)', 'value cannot be converted to type c10::Half without overflow'],
    ['torch.full((2,), 3e9, dtype=torch.int32)', 'value cannot be converted to type int without overflow'],
    ['torch.full((2,), 1e39, dtype=torch.bfloat16)', 'value cannot be converted to type c10::BFloat16 without overflow'],
    ['torch.full((2,), 9223372036854775808, dtype=torch.int64)', 'value cannot be converted to type int64_t without overflow'],
  ])('%s is refused', (line, text) => {
    const m = message(line);
    expect(m).toContain('torch.full: ');
    expect(m).toContain(text);
  });

  it.each([
    "torch.full((2,), float('inf'))",
    'torch.full((2,), 3.7, dtype=torch.int32)',
    "torch.full((2,), float('nan'), dtype=torch.bool)",
    'torch.full((2,), 1e300, dtype=torch.float64)',
    'torch.full((2,), -2147483648, dtype=torch.int32)',
  ])('%s is accepted (as PyTorch accepts it)', (line) => {
    expect(message(line)).toBe('accepted');
  });
});

describe('factories too large to make', () => {
  it.each([
    ['torch.arange(0., 1e10, 1e-10)', /torch.arange: shape: size 100000000000000000000 of dim 0/],
    ['torch.empty_strided((4503599627370496, 4503599627370496), (1, 1))', /elements|size|limit/],
    ['torch.ones(1099511627776, 1073741824)', /elements|size|limit/],
    ['torch.randn(100000, 100000)', /elements|size|limit/],
  ])('%s: one error with the size, no stack trace', (line, pattern) => {
    const m = message(line);
    expect(m).not.toBe('accepted');
    expect(m).toMatch(pattern);
    expect(m).not.toMatch(/^uncaught/);
  });
});
