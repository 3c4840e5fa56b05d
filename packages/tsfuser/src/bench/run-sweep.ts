// `tsfuser bench --suite sweep`: times every sweep point (sweep-points.ts) through the cached
// execute path on the GPU and, in the same run, PyTorch eager and torch.compile on the same points
// (tools/bench/sweep_pytorch.py, given the points as JSON), L2 flushed by a read on both sides.
// Inputs are filled on the device by tiling one random block (host-side generation of gigabytes
// would dominate the run); values do not change the speed of these kernels.
//
// Invariant: every measurement in the report belongs to a point of the chosen chunk, and a point
// that fails on one side is a note, never a number.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { HostTensor } from '@tsfuser/fusion-ir';
import { Tensor, type DeviceContext } from '@tsfuser/device';
import { createGpuBackend } from '../execute/gpu-backend.js';
import { BackendUnavailableError } from '../errors.js';
import { Random, randomIndices } from './device-inputs.js';
import { copyBandwidth, l2Flusher, timeDevice } from './timing.js';
import { definitionDependsOnHidden, sweepDefinition, sweepInputs } from './sweep-definitions.js';
import { SWEEP_DROPOUT_P } from './sweep-dropout-definitions.js';
import { chunkOf, pointName, sweepPoints, type SweepPoint, type SweepSelection } from './sweep-points.js';
import type { SweepImpl, SweepMeasurement, SweepReport } from './sweep-report.js';

export interface SweepOptions {
  selection: SweepSelection;
  chunk: { index: number; count: number };
  iters: number;
  pytorch: boolean;
  pytorchScript?: string;
  commit?: string;
  cwd: string;
  log: (line: string) => void;
}

const BLOCK_ELEMENTS = 1 << 22;

type BlockDtype = 'Float' | 'BFloat16' | 'Bool';

/** A device tensor of `sizes` filled by tiling one random block of `block` (same dtype). */
function tiledInput(device: DeviceContext, block: Tensor, dtype: BlockDtype, sizes: readonly number[]): Tensor {
  const numel = sizes.reduce((a, b) => a * b, 1);
  const t = Tensor.emptyDevice(device, dtype, sizes);
  const bytes = numel * (dtype === 'Float' ? 4 : dtype === 'Bool' ? 1 : 2);
  const blockBytes = block.storageBytes;
  for (let at = 0; at < bytes; at += blockBytes) device.copyDeviceToDevice(t.dataPtr + BigInt(at), block.dataPtr, Math.min(blockBytes, bytes - at));
  return t;
}

function randomBlock(device: DeviceContext, dtype: BlockDtype, rng: Random, positive = false): Tensor {
  // Bool: a dropout keep mask (true with probability 1 − p).
  const values = Array.from({ length: BLOCK_ELEMENTS }, () => (dtype === 'Bool' ? rng.uniform() < 1 - SWEEP_DROPOUT_P : positive ? 0.5 + rng.uniform() : rng.normal()));
  return Tensor.fromHost(HostTensor.fromValues(dtype, [BLOCK_ELEMENTS], values)).toDevice(device);
}

function findScript(cwd: string, explicit: string | undefined): string | undefined {
  if (explicit !== undefined) return resolve(cwd, explicit);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, 'tools', 'bench', 'sweep_pytorch.py');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

function commitOf(cwd: string, explicit: string | undefined): string {
  if (explicit !== undefined) return explicit;
  const env = process.env['TSFUSER_COMMIT'];
  if (env !== undefined && env !== '') return env;
  const manifest = join(cwd, 'gpu-bundle', 'manifest.json');
  if (existsSync(manifest)) {
    const m = JSON.parse(readFileSync(manifest, 'utf8')) as { commit?: string };
    if (typeof m.commit === 'string') return m.commit;
  }
  return 'unknown';
}

interface PytorchSweepLine {
  name?: string;
  impl?: string;
  median_ms?: number;
  error?: string;
}

function runPytorchSweep(script: string, points: readonly SweepPoint[], iters: number, log: (l: string) => void, notes: string[]): PytorchSweepLine[] {
  const dir = mkdtempSync(join(tmpdir(), 'tsfuser-sweep-'));
  const pointsFile = join(dir, 'points.json');
  const out = join(dir, 'pytorch.jsonl');
  writeFileSync(pointsFile, JSON.stringify(points.map((p) => ({ ...p, name: pointName(p) }))));
  const python = process.env['PYTHON'] ?? 'python3';
  log(`running ${python} ${script} on ${points.length} points (eager and torch.compile) …`);
  const r = spawnSync(python, [script, '--points', pointsFile, '--iters', String(iters), '--out', out], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 1_200_000 });
  if (r.status !== 0) notes.push(`sweep_pytorch.py exited ${String(r.status)}: ${(r.stderr ?? '').split('\n').slice(-4).join(' | ')}`);
  if (!existsSync(out)) return [];
  return readFileSync(out, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as PytorchSweepLine);
}

export async function runSweep(options: SweepOptions): Promise<SweepReport> {
  const backend = createGpuBackend({ cubinDirectory: null });
  const a = backend.availability();
  if (!a.available) throw new BackendUnavailableError(`tsfuser bench --suite sweep needs a GPU: ${a.reason}`);
  const { log } = options;
  const device = backend.device(0);
  const rng = new Random(20261124);
  const flusher = l2Flusher(device, 'read');
  const points = chunkOf(sweepPoints(options.selection), options.chunk.index, options.chunk.count);
  const measurements: SweepMeasurement[] = [];
  const compileMs: Record<string, number> = {};
  const notes: string[] = [];
  const blocks = { Float: randomBlock(device, 'Float', rng), BFloat16: randomBlock(device, 'BFloat16', rng), Bool: randomBlock(device, 'Bool', rng), positive: randomBlock(device, 'Float', rng, true) };
  try {
    const copyGbps = copyBandwidth(device, flusher, options.iters);
    log(`device ${device.properties.name}: copy ${copyGbps.toFixed(0)} GB/s; ${points.length} points`);
    const definitions = new Map<string, ReturnType<typeof sweepDefinition>>();
    for (const p of points) {
      const key = `${p.family}/${p.dtype}${definitionDependsOnHidden(p.family) ? `/${p.hidden}` : ''}`;
      let fd = definitions.get(key);
      if (fd === undefined) {
        fd = sweepDefinition(p.family, p.dtype, p.hidden);
        definitions.set(key, fd);
      }
      const specs = sweepInputs(p.family, p.dtype, p.rows, p.hidden);
      const tensors = specs.filter((i) => i.scalar === undefined).map((i) => {
        // Index tensors (cross_entropy's labels, one per row) and fixed values (nanoGPT's causal
        // mask, [16, hidden]) are small: uploaded from the host.
        if (i.indexBound !== undefined) return Tensor.fromHost(randomIndices(i.dtype, i.sizes, i.indexBound, rng)).toDevice(device);
        if (i.values !== undefined) return Tensor.fromHost(i.values()).toDevice(device);
        const dtype: BlockDtype = i.dtype === 'Float' || i.dtype === 'Bool' ? i.dtype : 'BFloat16';
        return tiledInput(device, i.positive === true ? blocks.positive : blocks[dtype], dtype, i.sizes);
      });
      // Scalars (the dropout seed and offset) in definition order between the tensors.
      let next = 0;
      const inputs: (Tensor | number)[] = specs.map((i) => i.scalar ?? (tensors[next++] as Tensor));
      try {
        const t0 = performance.now();
        const first = await fd.execute(inputs, { backend });
        compileMs[pointName(p)] = performance.now() - t0;
        first.forEach((t) => t.dispose());
        const cache = backend.executorCache(fd.fusionIr());
        const ms = timeDevice(device, flusher, () => cache.runFusion(inputs).forEach((t) => t.dispose()), options.iters);
        measurements.push({ point: p, impl: 'tsfuser', medianMs: ms });
        log(`${pointName(p)}: ${ms.toFixed(4)} ms`);
      } catch (error) {
        // TSFUSER_DEBUG=1: the whole stack, to find where a point's planning failed.
        const where = process.env.TSFUSER_DEBUG === '1' ? `\n${(error as Error).stack ?? ''}` : '';
        notes.push(`${pointName(p)}: ${(error as Error).name}: ${(error as Error).message.split('\n')[0] ?? ''}${where}`);
      } finally {
        for (const t of tensors) t.dispose();
        device.releasePool();
      }
    }
    if (options.pytorch) {
      const script = findScript(options.cwd, options.pytorchScript);
      if (script === undefined) {
        notes.push('pytorch: tools/bench/sweep_pytorch.py not found');
      } else {
        const byName = new Map(points.map((p) => [pointName(p), p]));
        for (const line of runPytorchSweep(script, points, options.iters, log, notes)) {
          const p = line.name === undefined ? undefined : byName.get(line.name);
          if (line.error !== undefined) notes.push(`pytorch ${line.name ?? '?'} ${line.impl ?? ''}: ${line.error}`);
          if (p === undefined || line.median_ms === undefined || (line.impl !== 'eager' && line.impl !== 'torch.compile')) continue;
          measurements.push({ point: p, impl: line.impl as SweepImpl, medianMs: line.median_ms });
        }
      }
    }
    return {
      device: device.properties.name,
      date: new Date().toISOString().slice(0, 10),
      commit: commitOf(options.cwd, options.commit),
      copyGbps,
      chunk: `${options.chunk.index + 1}/${options.chunk.count}`,
      measurements,
      compileMs,
      notes,
    };
  } finally {
    blocks.Float.dispose();
    blocks.BFloat16.dispose();
    blocks.Bool.dispose();
    blocks.positive.dispose();
    flusher.dispose();
  }
}
