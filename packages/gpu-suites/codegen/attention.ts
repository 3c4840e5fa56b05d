// GPU entry `codegen-attention`: the flash-attention kernels that @tsfuser/codegen generates
// (forward, backward), compiled with NVRTC and run on the device.
//
//   pnpm gpu:bundle codegen-attention
//   (GPU host) bash gpu-bundle/run.sh codegen-attention [--seed S] [--random N] [--no-bench] [--no-tuning]
//              [--quick] [--tilings f0,f3,b1]   (--quick: no random cases, QUICK_TILINGS, lighter probes)
//              [--no-cases] [--no-defaults] [--tuning-seqs 4096,8192]   (skip the fixed / random cases, the
//              defaults' bench; time the tuning tilings at these L = S instead of 4096)
//
// 1. Correctness: the fixed and N (16) seeded random cases of attention-cases.ts, outputs
//    poisoned first, against the float64 reference (‖out − ref‖ / ‖ref‖ ≤ 1e-2 for O, dQ, dK,
//    dV; ≤ 1e-3 for logsumexp; −inf logsumexp where a row attends nothing), every tuning tiling
//    also checked on three cases (causal; mask + dropout + GQA, strided; plain non-causal over
//    batches) before it is timed.
// 2. Tuning: the tilings of codegen's FORWARD_TUNING / BACKWARD_TUNING at L = S = 4096 (causal
//    and not).
// 3. Bench: the issue's points with the fastest checked tiling of step 2 for that causality
//    (the tuned default when tuning is off); the table is printed last.
// Writes attention.json to $OUT when set (read by tools/bench/attention_bench.py --tsfuser).
// Exit code 1 when any check failed.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeviceContext, isAvailable } from '@tsfuser/device';
import { BACKWARD_TUNING, FORWARD_TUNING, tilingTag, tuningTiling, type AttentionTiling, type TuningEntry } from '@tsfuser/codegen';
import { runCase, caseLabel, type AttentionCase, type CaseResult } from './attention-case.js';
import { attentionCases } from './attention-cases.js';
import { benchAttention, BENCH_SEQUENCES, type BenchRow } from './attention-bench.js';
import { KernelCache } from './attention-device.js';

function argValue(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const raw = i >= 0 ? process.argv[i + 1] : undefined;
  return raw === undefined ? fallback : Number(raw);
}

function tilingText(t: AttentionTiling, pass: 'forward' | 'backward'): string {
  // The backward's shape as key and query tile, then the same flag words as tilingTag.
  const flags = tilingTag(t).split(' ').slice(2).join(' ');
  return pass === 'forward' ? tilingTag(t) : `${t.warps}w kv${t.blockN} q${t.blockM}${flags === '' ? '' : ` ${flags}`}`;
}

/** The tuning entries `--quick` times (FORWARD_TUNING f#, BACKWARD_TUNING b#) unless --tilings
 * names others: the old defaults, then one of each new idea; the new defaults are timed in the
 * defaults table anyway. */
const QUICK_TILINGS = ['f0', 'f1', 'f9', 'f10', 'f14', 'f18', 'f19', 'f21', 'f23', 'f25', 'b0', 'b9'];

interface TuningRow {
  pass: string;
  tiling: string;
  ok: boolean;
  rows: BenchRow[];
  t: AttentionTiling;
}

const PROBE: AttentionCase = { id: 9000, dtype: 'BFloat16', batch: 1, heads: 2, kvHeads: 1, queryLength: 1000, keyLength: 1000, headDim: 128, causal: true, bias: 'none', biasBroadcast: [false, false], dropoutP: 0, sequenceMajor: false, padRows: false, backward: true };

/**
 * One tuning entry: checked on the probes (causal; plain non-causal over batches and GQA heads;
 * unless `quick` for a forward tiling, mask + dropout + GQA strided; with a folded forward scale,
 * scales -0.125 and 0), then its pass timed at 4096, causal and not. Undefined when refused.
 */
/** Forward probes of a wgmma tiling beside PROBE's: fp16, single rows and keys, L and S not multiples of the tiles (L < S and L > S, causal), BSHD with padded rows, GQA over batches, E 64 (the entry's tiling at head dim 64). */
function wgmmaProbes(entry: TuningEntry): AttentionCase[] {
  const at = (headDim: number): { forwardTiling: AttentionTiling } => ({ forwardTiling: tuningTiling('forward', entry, headDim) });
  const base: AttentionCase = { ...PROBE, backward: false, ...at(128) };
  return [
    { ...base, id: 9010, dtype: 'Half', queryLength: 1000, keyLength: 1000 },
    { ...base, id: 9011, queryLength: 1, keyLength: 1, causal: false },
    { ...base, id: 9012, queryLength: 17, keyLength: 129 },
    { ...base, id: 9013, queryLength: 200, keyLength: 1000 },
    { ...base, id: 9014, dtype: 'Half', queryLength: 1000, keyLength: 200 },
    { ...base, id: 9015, batch: 2, heads: 4, kvHeads: 2, queryLength: 300, keyLength: 77, causal: false, sequenceMajor: true, padRows: true },
    { ...base, id: 9016, headDim: 64, queryLength: 333, keyLength: 1000, ...at(64) },
    { ...base, id: 9017, dtype: 'Half', headDim: 64, batch: 2, queryLength: 1000, keyLength: 1000, causal: false, ...at(64) },
  ];
}

function tuneOne(device: DeviceContext, kernels: KernelCache, pass: 'forward' | 'backward', entry: TuningEntry, seed: number, quick: boolean, results: CaseResult[], seqs: readonly number[]): TuningRow | undefined {
  let tiling: AttentionTiling;
  try {
    tiling = tuningTiling(pass, entry);
  } catch (error) {
    console.log(`tiling ${pass} ${entry[0]}w ${entry[1]}x${entry[2]} refused: ${(error as Error).message}`);
    return undefined;
  }
  const override = pass === 'forward' ? { forwardTiling: tiling } : { backwardTiling: tiling };
  const backward = pass === 'backward';
  const probes: AttentionCase[] = [
    { ...PROBE, backward, ...override },
    { ...PROBE, id: 9002, batch: 2, heads: 2, kvHeads: 1, queryLength: 500, keyLength: 700, causal: false, backward, ...override },
  ];
  const wgmma = tiling.mma === 'wgmma';
  // The wgmma forward takes no mask or dropout (refused): its probes are odd sizes, fp16 and E 64 instead.
  if ((!quick || backward) && !wgmma) probes.push({ ...PROBE, id: 9001, heads: 4, kvHeads: 2, keyLength: 300, causal: false, bias: 'bool', dropoutP: 0.2, sequenceMajor: true, padRows: true, backward, ...override });
  if (wgmma) probes.push(...wgmmaProbes(entry));
  if (!backward && tiling.foldScale) for (const [i, scale] of [-0.125, 0].entries()) probes.push({ ...PROBE, id: 9003 + i, queryLength: 300, keyLength: 200, scale, backward: false, ...override });
  let ok = true;
  for (const c of probes) {
    const r = runCase(device, kernels, c, seed);
    results.push(r);
    ok &&= r.ok;
    console.log(`${r.ok ? 'ok  ' : 'FAIL'} tiling ${pass} ${tilingText(tiling, pass)} ${caseLabel(c)}: ${r.detail}`);
  }
  const rows = ok ? benchAttention(device, kernels, seqs.flatMap((seq) => [false, true].map((causal) => ({ seq, causal, ...override }))), pass) : [];
  return { pass, tiling: tilingText(tiling, pass), ok, rows, t: tiling };
}

function printBench(title: string, rows: readonly BenchRow[]): void {
  if (rows.length === 0) return;
  console.log(`\ntsfuser attention, ${title}: bf16, N 4, H 16, E 128 (TFLOP/s: fwd 4NHLSE, bwd 2.5x, causal half)`);
  console.log(`  tilings: non-causal ${rows.find((r) => !r.causal)?.tiling ?? '?'}; causal ${rows.find((r) => r.causal)?.tiling ?? '?'}`);
  console.log('  seq   causal   fwd ms  fwd TF/s   bwd ms  bwd TF/s');
  for (const r of rows) console.log(`  ${String(r.seq).padEnd(5)} ${String(r.causal).padEnd(6)} ${r.forwardMs.toFixed(3).padStart(8)} ${r.forwardTflops.toFixed(0).padStart(9)} ${r.backwardMs.toFixed(3).padStart(8)} ${r.backwardTflops.toFixed(0).padStart(9)}`);
}

function main(): number {
  const availability = isAvailable();
  if (!availability.available) {
    console.log(`ATTENTION: runtime unavailable: ${availability.reason ?? '?'}`);
    return 1;
  }
  const seed = argValue('--seed', Date.now() % 1_000_000);
  const quick = process.argv.includes('--quick');
  const randomCount = argValue('--random', quick ? 0 : 16);
  const tilingsArg = process.argv[process.argv.indexOf('--tilings') + 1];
  const selected = process.argv.includes('--tilings') && tilingsArg !== undefined ? new Set(tilingsArg.split(',')) : quick ? new Set(QUICK_TILINGS) : undefined;
  const seqsArg = process.argv[process.argv.indexOf('--tuning-seqs') + 1];
  const tuningSeqs = process.argv.includes('--tuning-seqs') && seqsArg !== undefined ? seqsArg.split(',').map(Number) : [4096];
  const device = DeviceContext.create(0);
  const p = device.properties;
  console.log(`device: ${p.name} ${p.arch}, ${p.smCount} SMs; seed ${seed}`);
  const kernels = new KernelCache(device);
  const results: CaseResult[] = [];
  const started = performance.now();
  for (const c of process.argv.includes('--no-cases') ? [] : attentionCases(seed, randomCount)) {
    const t0 = performance.now();
    const r = runCase(device, kernels, c, seed);
    results.push(r);
    console.log(`${r.ok ? 'ok  ' : 'FAIL'} #${c.id} ${caseLabel(c)}: ${r.detail} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }

  // Tuning tilings: each checked on the probe cases, then timed at 4096.
  const tuning: TuningRow[] = [];
  const runTuning = !process.argv.includes('--no-tuning') && !process.argv.includes('--no-bench');
  const save = (bench: BenchRow[], defaults: BenchRow[]): void => {
    const out = process.env.OUT;
    if (out === undefined || out === '') return;
    writeFileSync(join(out, 'attention.json'), JSON.stringify({ device: p.name, seed, compileMs: kernels.compileMs, cases: results.map((r) => ({ label: caseLabel(r.c), ok: r.ok, errors: r.errors, detail: r.detail })), tuning, bench, defaults }, null, 1));
  };
  // The defaults (what a segment runs) at every point first, then the tuning, then the fastest
  // tuned tilings at every point.
  const noBench = process.argv.includes('--no-bench');
  const defaults = noBench || process.argv.includes('--no-defaults') ? [] : benchAttention(device, kernels, BENCH_SEQUENCES.flatMap((seq) => [false, true].map((causal) => ({ seq, causal }))));
  printBench('defaults (forwardTiling / backwardTiling)', defaults);
  save([], defaults);
  if (runTuning) {
    for (const [pass, list] of [['forward', FORWARD_TUNING], ['backward', BACKWARD_TUNING]] as const) {
      for (const [index, entry] of list.entries()) {
        if (selected !== undefined && !selected.has(`${pass[0]}${index}`)) continue;
        const t0 = performance.now();
        const row = tuneOne(device, kernels, pass, entry, seed, quick, results, tuningSeqs);
        if (row === undefined) continue;
        tuning.push(row);
        // Printed and saved as measured: a run stopped by its time limit keeps the rows so far.
        console.log(`time tiling ${pass[0]}${index} ${pass} ${row.tiling}: ${row.ok ? row.rows.map((r) => (pass === 'forward' ? r.forwardTflops : r.backwardTflops).toFixed(0)).join(' / ') : 'failed its check'} TFLOP/s (non-causal / causal at ${tuningSeqs.join(', ')}; ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
        save([], defaults);
      }
    }
  }
  // The bench runs, for causal and non-causal points apart, the fastest checked tiling of each
  // pass at 4096 with that causality (the tuned defaults also differ by causality).
  const best = (pass: string, causal: boolean): AttentionTiling | undefined => {
    const score = (rows: BenchRow[]): number => rows.filter((r) => r.causal === causal).reduce((a, r) => a + (pass === 'forward' ? r.forwardTflops : r.backwardTflops), 0);
    return tuning.filter((t) => t.pass === pass && t.ok && t.rows.length > 0).sort((a, b) => score(b.rows) - score(a.rows))[0]?.t;
  };
  const chosen = (causal: boolean): { forwardTiling?: AttentionTiling; backwardTiling?: AttentionTiling } => {
    const forwardTiling = best('forward', causal);
    const backwardTiling = best('backward', causal);
    return { ...(forwardTiling === undefined ? {} : { forwardTiling }), ...(backwardTiling === undefined ? {} : { backwardTiling }) };
  };
  const bench = noBench || tuning.length === 0 ? [] : benchAttention(device, kernels, BENCH_SEQUENCES.flatMap((seq) => [false, true].map((causal) => ({ seq, causal, ...chosen(causal) }))));
  save(bench, defaults);
  const failed = results.filter((r) => !r.ok);

  console.log(`\ncorrectness: ${results.length - failed.length} passed, ${failed.length} failed (seed ${seed}, ${((performance.now() - started) / 1000).toFixed(0)} s, NVRTC ${(kernels.compileMs / 1000).toFixed(1)} s)`);
  for (const f of failed) console.log(`  FAIL ${caseLabel(f.c)}: ${f.detail}`);
  if (tuning.length > 0) {
    console.log(`\ntuning at L = S = ${tuningSeqs.join(', ')} (bf16, N 4, H 16, E 128): TFLOP/s non-causal / causal`);
    for (const t of tuning) console.log(`  ${t.pass.padEnd(8)} ${t.tiling.padEnd(44)} ${t.ok ? t.rows.map((r) => (t.pass === 'forward' ? r.forwardTflops : r.backwardTflops).toFixed(0)).join(' / ') : 'failed its check'}`);
  }
  printBench('defaults (forwardTiling / backwardTiling)', defaults);
  printBench('the fastest checked tuning tilings per causality', bench);
  device.dispose();
  return failed.length === 0 ? 0 : 1;
}

process.exitCode = main();
