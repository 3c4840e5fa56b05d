// Lowering builds none of the analyses the scheduler already has (issue 32): the exact logical
// maps, the reshape index graph and the resize index spaces come with the scheduled fusion
// (ScheduledFusion.analyses, scheduler's lowering-analyses.ts, made by the scheduler's final
// step). The source check fails on any construction in packages/codegen/src; the kernel checks
// lower a fixture of each loop-nest scheduler (and a greedy scan) and count what was built: one
// exact map (two with slice / pad / cat: through them and not), one reshape index graph, index
// spaces only with resizes, nothing for a greedy kernel — and nothing more when the same
// scheduled fusion is generated again (its dumps).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { add, cumsum, Fusion, makeTensor, mul, pad, permute, sum, type TensorView } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo, type LoweringAnalysisCounts, type SchedulerType } from '@tsfuser/scheduler';
import { generateKernel } from '../src/index.js';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

const withoutComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** Lines that build an analysis the scheduled fusion carries. */
function analysisBuilds(text: string): string[] {
  const patterns = [/new\s+ExactLogicalMap\b/, /new\s+ReshapeIndexGraph\b/, /\bindexSpacesOf\s*\(/, /\bcomputeIndexSpaces\s*\(/];
  return withoutComments(text).split('\n').filter((line) => patterns.some((p) => p.test(line)));
}

function input(f: Fusion, shape: number[]): TensorView {
  const tv = makeTensor(f, { shape, dtype: 'Float' });
  f.addInput(tv);
  return tv;
}

interface Case {
  name: string;
  type: SchedulerType;
  resize: boolean;
  sizes: number[][];
  build: (f: Fusion) => void;
}

const CASES: Case[] = [
  { name: 'x * 2', type: 'pointwise', resize: false, sizes: [[64, 128]], build: (f) => f.addOutput(mul(input(f, [-1, -1]), 2)) },
  { name: 'pad(x) + 1', type: 'pointwise', resize: true, sizes: [[64, 128]], build: (f) => f.addOutput(add(pad(input(f, [-1, -1]), [1, 1]), 1)) },
  { name: 'sum(x, 0)', type: 'reduction', resize: false, sizes: [[4096, 64]], build: (f) => f.addOutput(sum(input(f, [-1, -1]), [0])) },
  { name: 'x - sum(x, 1)', type: 'inner_persistent', resize: false, sizes: [[64, 1024]], build: (f) => {
    const x = input(f, [-1, -1]);
    f.addOutput(add(x, mul(sum(x, [1], true), -1)));
  } },
  { name: 'permute(x) * 2', type: 'transpose', resize: false, sizes: [[512, 1024]], build: (f) => f.addOutput(mul(permute(input(f, [-1, -1]), [1, 0]), 2)) },
  { name: 'cumsum(x, 1)', type: 'greedy', resize: false, sizes: [[64, 128]], build: (f) => f.addOutput(cumsum(input(f, [-1, -1]), 1)) },
];

describe('lowering reads the scheduled fusion\'s analyses and builds none', () => {
  it('the check finds the constructions lowering used to make', () => {
    const before = [
      '    exactMap: new ExactLogicalMap(fusion, fusion.allTvs(), { throughResize: hasResizeExprs(fusion) }),',
      '    reshapeIndex: new ReshapeIndexGraph(fusion, reference),',
      '    this.spaces = indexSpacesOf(ctx.fusion, ctx.reference);',
    ].join('\n');
    expect(analysisBuilds(before)).toHaveLength(3);
    expect(analysisBuilds('  // new ExactLogicalMap(fusion) in a comment\n  const m = ctx.exactMap;')).toEqual([]);
  });

  it('no file of packages/codegen/src builds an exact map, a reshape index graph or index spaces', () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(20);
    const found = files.flatMap((f) => analysisBuilds(readFileSync(f, 'utf8')).map((line) => `${f.slice(SRC.length + 1)}: ${line.trim()}`));
    expect(found).toEqual([]);
  });

  for (const c of CASES) {
    it(`${c.type} (${c.name}): each analysis built once, none again when generated a second time`, () => {
      const f = new Fusion();
      c.build(f);
      const info = makeRuntimeInfo(f, c.sizes.map((sizes) => ({ sizes })));
      const { scheduler, analysis } = defaultSchedulerRegistry().pick(f, info);
      expect(scheduler.type).toBe(c.type);
      scheduler.computeHeuristics(f, info, analysis);
      const scheduled = analysis.scheduled(scheduler);
      const expected: LoweringAnalysisCounts =
        c.type === 'greedy' ? { exactMaps: 0, reshapeIndexGraphs: 0, indexSpaces: 0 } : { exactMaps: c.resize ? 2 : 1, reshapeIndexGraphs: 1, indexSpaces: c.resize ? 1 : 0 };
      const first = generateKernel(scheduled);
      expect({ ...scheduled.analyses.counts }).toEqual(expected);
      expect(scheduled.analyses.hasResize).toBe(c.resize);
      const again = generateKernel(scheduled);
      expect(again.source).toBe(first.source);
      expect({ ...scheduled.analyses.counts }).toEqual(expected);
    });
  }
});
