// GPU entry `codegen-attention`: the flash-attention kernels that @tsfuser/codegen generates
// (forward, backward), compiled with NVRTC and run on the device.
//
//   pnpm gpu:bundle codegen-attention
//   (GPU host) bash gpu-bundle/run.sh codegen-attention [--seed S] [--random N] [--no-bench] [--no-tuning]
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
import { BACKWARD_TUNING, FORWARD_TUNING, tilingTag, tuningTiling, type AttentionTiling } from '@tsfuser/codegen';
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

function main(): number {
  const availability = isAvailable();
  if (!availability.available) {
    console.log(`ATTENTION: runtime unavailable: ${availability.reason ?? '?'}`);
    return 1;
  }
  const seed = argValue('--seed', Date.now() % 1_000_000);
  const randomCount = argValue('--random', 16);
  const device = DeviceContext.create(0);
  const p = device.properties;
  console.log(`device: ${p.name} ${p.arch}, ${p.smCount} SMs; seed ${seed}`);
  const kernels = new KernelCache(device);
  const results: CaseResult[] = [];
  const started = performance.now();
  for (const c of attentionCases(seed, randomCount)) {
    const t0 = performance.now();
    const r = runCase(device, kernels, c, seed);
    results.push(r);
    console.log(`${r.ok ? 'ok  ' : 'FAIL'} #${c.id} ${caseLabel(c)}: ${r.detail} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }

  // Tuning tilings: each checked on one case, then timed at 4096.
  const tuning: { pass: string; tiling: string; ok: boolean; rows: BenchRow[]; t: AttentionTiling }[] = [];
  const runTuning = !process.argv.includes('--no-tuning') && !process.argv.includes('--no-bench');
  if (runTuning) {
    const probe: AttentionCase = { id: 9000, dtype: 'BFloat16', batch: 1, heads: 2, kvHeads: 1, queryLength: 1000, keyLength: 1000, headDim: 128, causal: true, bias: 'none', biasBroadcast: [false, false], dropoutP: 0, sequenceMajor: false, padRows: false, backward: true };
    for (const [pass, list] of [['forward', FORWARD_TUNING], ['backward', BACKWARD_TUNING]] as const) {
      for (const entry of list) {
        let tiling: AttentionTiling;
        try {
          tiling = tuningTiling(pass, entry);
        } catch (error) {
          console.log(`tiling ${pass} ${entry[0]}w ${entry[1]}x${entry[2]} refused: ${(error as Error).message}`);
          continue;
        }
        const override = pass === 'forward' ? { forwardTiling: tiling } : { backwardTiling: tiling };
        const checked = runCase(device, kernels, { ...probe, backward: pass === 'backward', ...override }, seed);
        results.push(checked);
        // The same tiling with a mask, dropout, GQA, a strided padded layout and S ≠ L.
        const masked = runCase(device, kernels, { ...probe, id: 9001, heads: 4, kvHeads: 2, keyLength: 300, causal: false, bias: 'bool', dropoutP: 0.2, sequenceMajor: true, padRows: true, backward: pass === 'backward', ...override }, seed);
        results.push(masked);
        // Plain non-causal (the folded scale's unmasked and masked tiles) over batches and GQA heads.
        const plain = runCase(device, kernels, { ...probe, id: 9002, batch: 2, heads: 2, kvHeads: 1, queryLength: 500, keyLength: 700, causal: false, backward: pass === 'backward', ...override }, seed);
        results.push(plain);
        console.log(`${plain.ok ? 'ok  ' : 'FAIL'} tiling ${pass} ${tilingText(tiling, pass)} plain: ${plain.detail}`);
        console.log(`${masked.ok ? 'ok  ' : 'FAIL'} tiling ${pass} ${tilingText(tiling, pass)} mask+dropout: ${masked.detail}`);
        console.log(`${checked.ok ? 'ok  ' : 'FAIL'} tiling ${pass} ${tilingText(tiling, pass)}: ${checked.detail}`);
        // A folded scale's sign fix-up: a negative and a zero scale (causal, L ≠ S).
        const signs = pass === 'forward' && tiling.foldScale ? [-0.125, 0].map((scale, i) => runCase(device, kernels, { ...probe, id: 9003 + i, queryLength: 300, keyLength: 200, scale, backward: false, ...override }, seed)) : [];
        results.push(...signs);
        for (const r of signs) console.log(`${r.ok ? 'ok  ' : 'FAIL'} tiling ${pass} ${tilingText(tiling, pass)} ${caseLabel(r.c)}: ${r.detail}`);
        const signsOk = signs.every((r) => r.ok);
        const rows = signsOk && checked.ok && masked.ok && plain.ok ? benchAttention(device, kernels, [false, true].map((causal) => ({ seq: 4096, causal, ...(pass === 'forward' ? { forwardTiling: tiling } : { backwardTiling: tiling }) }))) : [];
        tuning.push({ pass, tiling: tilingText(tiling, pass), ok: signsOk && checked.ok && masked.ok && plain.ok, rows, t: tiling });
        // Printed as measured too: a run stopped by its time limit still shows the rows so far.
        if (rows.length > 0) console.log(`time tiling ${pass} ${tilingText(tiling, pass)}: ${rows.map((r) => (pass === 'forward' ? r.forwardTflops : r.backwardTflops).toFixed(0)).join(' / ')} TFLOP/s (non-causal / causal, 4096)`);
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
  const bench = process.argv.includes('--no-bench') ? [] : benchAttention(device, kernels, BENCH_SEQUENCES.flatMap((seq) => [false, true].map((causal) => ({ seq, causal, ...chosen(causal) }))));
  const failed = results.filter((r) => !r.ok);
  const out = process.env.OUT;
  if (out !== undefined && out !== '') {
    writeFileSync(join(out, 'attention.json'), JSON.stringify({ device: p.name, seed, compileMs: kernels.compileMs, cases: results.map((r) => ({ label: caseLabel(r.c), ok: r.ok, errors: r.errors, detail: r.detail })), tuning, bench }, null, 1));
  }

  console.log(`\ncorrectness: ${results.length - failed.length} passed, ${failed.length} failed (seed ${seed}, ${((performance.now() - started) / 1000).toFixed(0)} s, NVRTC ${(kernels.compileMs / 1000).toFixed(1)} s)`);
  for (const f of failed) console.log(`  FAIL ${caseLabel(f.c)}: ${f.detail}`);
  if (tuning.length > 0) {
    console.log('\ntuning at L = S = 4096 (bf16, N 4, H 16, E 128): TFLOP/s non-causal / causal');
    for (const t of tuning) console.log(`  ${t.pass.padEnd(8)} ${t.tiling.padEnd(44)} ${t.ok ? t.rows.map((r) => (t.pass === 'forward' ? r.forwardTflops : r.backwardTflops).toFixed(0)).join(' / ') : 'failed its check'}`);
  }
  if (bench.length > 0) {
    console.log('\ntsfuser attention, bf16, N 4, H 16, E 128 (TFLOP/s: fwd 4NHLSE, bwd 2.5x, causal half)');
    console.log(`  tilings: non-causal ${bench.find((r) => !r.causal)?.tiling ?? '?'}; causal ${bench.find((r) => r.causal)?.tiling ?? '?'}`);
    console.log('  seq   causal   fwd ms  fwd TF/s   bwd ms  bwd TF/s');
    for (const r of bench) console.log(`  ${String(r.seq).padEnd(5)} ${String(r.causal).padEnd(6)} ${r.forwardMs.toFixed(3).padStart(8)} ${r.forwardTflops.toFixed(0).padStart(9)} ${r.backwardMs.toFixed(3).padStart(8)} ${r.backwardTflops.toFixed(0).padStart(9)}`);
  }
  device.dispose();
  return failed.length === 0 ? 0 : 1;
}

process.exitCode = main();
