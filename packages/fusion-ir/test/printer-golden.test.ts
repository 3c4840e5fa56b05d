// checkGolden / expectGolden: missing files, mismatches with a line diff, UPDATE_GOLDEN rewrites.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkGolden, lineDiff } from '../src/index.js';
import { canonicalNames, goldenPath, GOLDEN_ROOT } from './golden.js';

function tempFile(name: string): string {
  return join(mkdtempSync(join(tmpdir(), 'golden-')), name);
}

describe('checkGolden', () => {
  it('fails on a missing file and says to run with UPDATE_GOLDEN=1', () => {
    const r = checkGolden('x\n', tempFile('missing.txt'), false);
    expect(r.ok).toBe(false);
    expect(r.diff).toMatch(/does not exist; run the test with UPDATE_GOLDEN=1/);
  });

  it('writes the file when updating, then matches it', () => {
    const path = join(tempFile('dir'), 'nested', 'g.txt');
    expect(checkGolden('a\nb\n', path, true)).toEqual({ ok: true, diff: '' });
    expect(readFileSync(path, 'utf8')).toBe('a\nb\n');
    expect(checkGolden('a\nb\n', path, false)).toEqual({ ok: true, diff: '' });
  });

  it('reports a mismatch with the changed lines and never rewrites without update', () => {
    const path = tempFile('g.txt');
    const golden = ['l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7', 'l8', 'l9', ''].join('\n');
    writeFileSync(path, golden);
    const r = checkGolden(golden.replace('l6', 'L6'), path, false);
    expect(r.ok).toBe(false);
    expect(r.diff).toContain('UPDATE_GOLDEN=1');
    expect(r.diff).toContain('@@ golden line 3 @@\n  l3\n  l4\n  l5\n- l6\n+ L6\n  l7\n  l8\n  l9');
    expect(r.diff).not.toContain('  l1');
    expect(readFileSync(path, 'utf8')).toBe(golden);
  });
});

describe('lineDiff', () => {
  it('shows insertions and deletions in order', () => {
    expect(lineDiff('a\nb\nc', 'a\nx\nc\nd', 1)).toBe('@@ golden line 1 @@\n  a\n- b\n+ x\n  c\n+ d');
  });
});

describe('test helpers', () => {
  it('resolves golden paths under test-fixtures/golden', () => {
    expect(goldenPath('fusion-ir/a.txt')).toBe(join(GOLDEN_ROOT, 'fusion-ir/a.txt'));
    expect(goldenPath('/abs/a.txt')).toBe('/abs/a.txt');
  });

  it('canonicalNames renumbers by first appearance but keeps structure', () => {
    const a = 'T7_l[ iS12{i3}, rS4{( i3 * d9 )} ] = T2_g[ iS1{i3} ]';
    const b = 'T1_l[ iS0{i0}, rS1{( i0 * d1 )} ] = T0_g[ iS2{i0} ]';
    expect(canonicalNames(a)).toBe(canonicalNames(b));
    expect(canonicalNames(a)).not.toBe(canonicalNames(b.replace('rS1', 'iS1')));
    expect(canonicalNames(a)).not.toBe(canonicalNames(b.replace('* d1', '* i0')));
  });
});
