// GPU differential suite for the inner-outer persistent scheduler (not a vitest suite: it needs
// a GPU).
//
//   pnpm gpu:bundle codegen-inner-outer-persistent-suite
//   (GPU host) bash gpu-bundle/run.sh codegen-inner-outer-persistent-suite [--no-timing | --timing-only] [--dtype D]
//
// Runs every layer_norm backward fixture (@tsfuser/test-support layer-norm-backward-fixtures.ts: Float, Half,
// BFloat16; N×H from 1×1 to 8×4096, odd sizes, H not a multiple of the vector width, fewer
// and more rows than blocks) plus larger shapes (2048×1024, 3000×768, 1024×4096 and a row over
// the register budget that falls back to segmentation) through FusionExecutorCache with the
// default registry (segmentation → inner_outer_persistent → codegen → NVRTC → launch, outputs
// poisoned) and compares every element of grad_input, grad_weight and grad_bias with the
// reference evaluator on fresh random inputs. It runs each case twice through one cache (the
// grid barrier's static counter and the work buffers are reused across launches), and again
// with the row's allreduces ungrouped (groupInnerReductions false; grouped is the default),
// with the next row prefetched (prefetchNextRow) and with rows through shared memory by bulk
// copy (bulkLoadRows; and with 3 row slots per buffer, bulkStages 3, also at 16384×4096 against
// the segmented fallback; tsfuser-inner-outer-variants times the stages), with 3 rows per block on a one-block-per-SM grid (bdimy 3) and with one
// row per block (bdimy 1; small rows take several by default). Then, at
// 16384×4096 (Float, Half, BFloat16; `--dtype D` for one), checks the one-kernel schedule
// element by element against the segmented fallback (the default registry without the
// inner-outer persistent scheduler: reduction + pointwise kernels, each evaluator-checked
// above and in the other suites; the evaluator itself needs ~40 s per dtype at this size), and
// times the one-kernel schedule, its blocksPerSm / batches / grouping / prefetch / bulk variants and
// the segmented fallback,
// with the bandwidth of the input + output bytes. `--timing-only` skips every check and only
// times (tuning runs; the timed variants were checked by an earlier full run).
// Prints failures, a table by segments and `N passed, M failed` last; writes
// inner-outer-persistent-suite.json to $OUT when set; exits 1 on any failure.
// A hang here means the persistent grid was not co-resident (the grid barrier waits forever):
// report the device and the scheduler_params line `Blocks per SM`.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeviceContext, isAvailable, l2Flusher } from '@tsfuser/device';
import type { InnerOuterPersistentOverrides } from '@tsfuser/scheduler';
import { buildLayerNormBackward, layerNormBackwardFixtures, layerNormBackwardInputs } from '@tsfuser/test-support';
import { printCategoryTable } from './suite-report.js';
import { compareWithSegmented, registryFor, runLayerNormBackwardCase, timeLayerNormBackward, type Timing } from './layer-norm-backward-gpu.js';

/** `--dtype Float|Half|BFloat16` limits the 16384×4096 part to one dtype. */
function dtypeArg(): 'Float' | 'Half' | 'BFloat16' | undefined {
  const i = process.argv.indexOf('--dtype');
  const v = i < 0 ? undefined : process.argv[i + 1];
  if (v === undefined) return undefined;
  if (v === 'Float' || v === 'Half' || v === 'BFloat16') return v;
  throw new Error(`--dtype: expected Float, Half or BFloat16, got ${v}`);
}

function main(): number {
  const availability = isAvailable();
  if (!availability.available) {
    console.log(`INNER-OUTER PERSISTENT SUITE: runtime unavailable: ${availability.reason ?? '?'}`);
    return 1;
  }
  const timing = !process.argv.includes('--no-timing');
  const timingOnly = process.argv.includes('--timing-only');
  const device = DeviceContext.create(0);
  console.log(`device: ${device.properties.name}`);
  const cases = [
    ...layerNormBackwardFixtures(),
    buildLayerNormBackward('BFloat16', 2048, 1024),
    buildLayerNormBackward('Half', 3000, 768),
    buildLayerNormBackward('Float', 1024, 4096),
    // More rows than blocks, rows not dividing among them, 16-byte vectors (the bulk copies' predicated rows).
    buildLayerNormBackward('BFloat16', 1100, 96),
    // Over the register budget: refused, segmented (checks the fallback end to end).
    buildLayerNormBackward('Float', 16, 65536),
  ];
  const results = timingOnly ? [] : cases.map((c) => runLayerNormBackwardCase(device, c));
  // The same with the row's allreduces ungrouped, and with the next row prefetched.
  const variantsChecked: [string, InnerOuterPersistentOverrides][] = [
    ['ungrouped', { groupInnerReductions: false }],
    ['prefetch', { prefetchNextRow: true }],
    ['bulk', { bulkLoadRows: true }],
    // Three row slots per buffer: rows per block dividing 3 or not, fewer than 3 (small grids of many blocks).
    ['bulk_stages_3', { bulkLoadRows: true, bulkStages: 3 }],
    // Several rows per block forced odd (3) over a grid of one block per SM, so a block's rows
    // often do not divide by bdimy (the predicated chunk split); and one row per block, the path
    // small rows took before bdimy (rows whose threads do not fit 3 per block are segmented).
    ['rows_3', { bdimy: 3, blocksPerSm: 1 }],
    ['one_row', { bdimy: 1 }],
  ];
  for (const [label, overrides] of timingOnly ? [] : variantsChecked) {
    const registry = registryFor(overrides);
    for (const c of cases.slice(0, -1)) results.push({ ...runLayerNormBackwardCase(device, { ...c, name: `${c.name}_${label}` }, registry), category: `inner_outer_persistent ${label}` });
  }
  // Residency guard: 24 blocks of 128 threads per SM cannot all be resident (2048 threads at most); FusionExecutor.compile must ask
  // the driver and reschedule with what fits (else the grid barrier would never release).
  if (!timingOnly) results.push(runLayerNormBackwardCase(device, buildLayerNormBackward('BFloat16', 4096, 1024, 'residency_guard_bf16_4096x1024_24_per_sm'), registryFor({ blocksPerSm: 24 })));
  const failed = results.filter((r) => !r.ok);
  for (const r of failed) console.log(`FAIL ${r.name} [${r.category}]: ${r.detail}`);

  const timings: Timing[] = [];
  if (timing) {
    const flusher = l2Flusher(device);
    const only = dtypeArg();
    for (const dtype of (['Float', 'Half', 'BFloat16'] as const).filter((d) => only === undefined || d === only)) {
      const c = buildLayerNormBackward(dtype, 16384, 4096, `layer_norm_bwd_${dtype}_16384x4096`);
      // One input set per dtype (67M elements per tensor take seconds to make on the host).
      const inputs = layerNormBackwardInputs(c);
      // Progress lines: if the persistent grid ever blocks at the barrier, the log shows where.
      console.log(`${c.name}: checking the one-kernel schedule against the segmented fallback`);
      for (const overrides of timingOnly ? [] : [{}, { groupInnerReductions: false }, { bulkLoadRows: true }, { bulkLoadRows: true, bulkStages: 3 }]) {
        const atScale = compareWithSegmented(device, c, inputs, overrides);
        results.push(atScale);
        if (!atScale.ok) console.log(`FAIL ${atScale.name} [${atScale.category}]: ${atScale.detail}`);
      }
      const variants: (InnerOuterPersistentOverrides | 'segmented')[] = [
        {}, { blocksPerSm: 2 }, { groupInnerReductions: false }, { groupInnerReductions: false, batches: 2 },
        ...[1, 2, 4].map((batches) => ({ batches })),
        { prefetchNextRow: true }, { bulkLoadRows: true }, { bulkLoadRows: true, batches: 2 }, { bulkLoadRows: true, groupInnerReductions: false }, 'segmented',
      ];
      for (const v of variants) {
        console.log(`${c.name}: timing ${JSON.stringify(v)}`);
        try {
          timings.push(timeLayerNormBackward(device, flusher, c, v, inputs));
        } catch (error) {
          console.log(`TIMING ${c.name} ${JSON.stringify(v)} failed: ${(error as Error).message.split('\n')[0] ?? ''}`);
        }
      }
    }
    flusher.dispose();
  }
  const out = process.env.OUT;
  if (out !== undefined && out !== '') writeFileSync(join(out, 'inner-outer-persistent-suite.json'), JSON.stringify({ device: device.properties.name, results, timings }, null, 1));
  console.log('benchmark                          variant                          kernels   ms      GB/s');
  for (const t of timings) console.log(`${t.name.padEnd(35)}${t.variant.padEnd(33)}${String(t.kernels).padStart(7)}  ${t.ms.toFixed(4).padStart(7)}  ${t.gbps.toFixed(0).padStart(6)}`);
  printCategoryTable(results, 'segments', 34);
  console.log(`${results.length - failed.length} passed, ${failed.length} failed`);
  return failed.length === 0 ? 0 : 1;
}

process.exitCode = main();
