// Codegen decides nothing by scheduler type (issue 32 step 4): every lowering decision comes from
// the scheduled fusion's LoweringOptions, which the scheduler computes from its parameters
// (scheduler/src/lowering-options.ts). This test reads every source file of packages/codegen/src
// and fails on any comparison of, or switch over, a `schedulerType` (the name is still printed,
// e.g. in kernel names, which is not a decision).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** Line comments and block comments removed (a comment may name schedulerType). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** The lines of `text` that compare or switch on a scheduler type. */
function schedulerTypeDecisions(text: string): string[] {
  const patterns = [
    /schedulerType\s*(===|!==|==|!=)/,
    /(===|!==|==|!=)\s*[\w.?]*schedulerType\b/,
    /switch\s*\(\s*[\w.?]*schedulerType\s*\)/,
    /\[\s*['"]schedulerType['"]\s*\]/,
  ];
  return withoutComments(text).split('\n').filter((line) => patterns.some((p) => p.test(line)));
}

describe('codegen reads lowering options, never a scheduler type', () => {
  it('the check finds the comparisons codegen used to make', () => {
    const before = [
      "  switch (p.schedulerType) {",
      "  if (p.schedulerType !== 'reduction' || grids.length > 1) throw new LoweringError('');",
      "    enabled: (p) => p.schedulerType === 'inner_outer_persistent' && p.groupInnerReductions,",
      "  const minShared = 'inner_persistent' === p.schedulerType ? p.minSharedMemBytes : 0;",
    ].join('\n');
    expect(schedulerTypeDecisions(before)).toHaveLength(4);
    expect(schedulerTypeDecisions("  const name = `nvfuser_${params.schedulerType}_f0`; // p.schedulerType === 'x'")).toEqual([]);
  });

  it('no file of packages/codegen/src compares or switches on schedulerType', () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(20);
    const found = files.flatMap((f) => schedulerTypeDecisions(readFileSync(f, 'utf8')).map((line) => `${f.slice(SRC.length + 1)}: ${line.trim()}`));
    expect(found).toEqual([]);
  });
});
