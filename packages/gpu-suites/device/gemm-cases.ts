// The cases of the GEMM GPU suite: every dtype configuration × epilogue × transposition of A
// and B × batch mode (none, batched, A broadcast, B broadcast), sizes cycling through odd ones
// (1, 7, 129, 4095 among them), and which of them validateGemm must refuse as documented (fp8
// outside "TN", batched bias gradients, backward epilogues on fp8). Invariant: the list is a
// pure function of nothing (no randomness here; values are drawn from the suite's seed).

import { GEMM_EPILOGUE_KINDS, type GemmDtype, type GemmEpilogueKind } from '@tsfuser/device';

export interface DtypeConfig {
  name: string;
  a: GemmDtype;
  b: GemmDtype;
  d: GemmDtype;
  /** fp8: per-tensor A/B scales (and a D scale when D is fp8). */
  scaled: boolean;
}

export const DTYPE_CONFIGS: DtypeConfig[] = [
  { name: 'f32', a: 'Float', b: 'Float', d: 'Float', scaled: false },
  { name: 'bf16', a: 'BFloat16', b: 'BFloat16', d: 'BFloat16', scaled: false },
  { name: 'bf16→f32', a: 'BFloat16', b: 'BFloat16', d: 'Float', scaled: false },
  { name: 'fp16', a: 'Half', b: 'Half', d: 'Half', scaled: false },
  { name: 'e4m3→bf16', a: 'Float8_e4m3fn', b: 'Float8_e4m3fn', d: 'BFloat16', scaled: true },
  { name: 'e4m3×e5m2→bf16', a: 'Float8_e4m3fn', b: 'Float8_e5m2', d: 'BFloat16', scaled: true },
  { name: 'e4m3→e4m3', a: 'Float8_e4m3fn', b: 'Float8_e4m3fn', d: 'Float8_e4m3fn', scaled: true },
];

export type BatchMode = 'none' | 'batched' | 'broadcastA' | 'broadcastB';
export const BATCH_MODES: BatchMode[] = ['none', 'batched', 'broadcastA', 'broadcastB'];

/** DEFAULT with C: beta = 0.5 over a separate C. */
export type CaseEpilogue = GemmEpilogueKind | 'DEFAULT_C';

export interface GemmCase {
  id: string;
  config: DtypeConfig;
  epilogue: CaseEpilogue;
  transposeA: boolean;
  transposeB: boolean;
  batchMode: BatchMode;
  m: number;
  n: number;
  k: number;
  batch: number;
  /** The GemmError field validateGemm must refuse this case with, when it must. */
  refusedField?: string;
}

// (m, n, k): odd sizes, degenerate ones, one long K, long M and long N; Σ batch·m·n·k over all
// cases stays near 2·10⁹ so the float64 reference takes about a minute on the GPU host.
const SHAPES: [number, number, number][] = [
  [1, 7, 129],
  [7, 129, 1],
  [129, 7, 33],
  [4095, 7, 9],
  [7, 4095, 16],
  [9, 17, 4095],
  [1, 1, 1],
  [129, 33, 129],
];
// fp8 kernels need 16-byte-aligned rows: K a multiple of 16 (and N of 16 for an fp8 D).
const FP8_SHAPES: [number, number, number][] = [
  [16, 16, 16],
  [7, 32, 128],
  [129, 32, 64],
  [4095, 16, 16],
  [16, 16, 4096],
];

export function isFp8(config: DtypeConfig): boolean {
  return config.a.startsWith('Float8');
}

function expectedRefusal(config: DtypeConfig, epilogue: CaseEpilogue, ta: boolean, tb: boolean, batched: boolean): string | undefined {
  if (isFp8(config) && (ta || !tb)) return ta ? 'a.transposed' : 'b.transposed';
  if (batched && (epilogue === 'BGRADA' || epilogue === 'BGRADB')) return 'epilogue.kind';
  if (isFp8(config) && ['DRELU', 'DGELU', 'DRELU_BGRAD', 'DGELU_BGRAD', 'BGRADA', 'BGRADB'].includes(epilogue)) {
    return epilogue.startsWith('BGRAD') ? 'epilogue.biasGradient' : 'epilogue.kind';
  }
  return undefined;
}

export function gemmCases(): GemmCase[] {
  const cases: GemmCase[] = [];
  const epilogues: CaseEpilogue[] = [...GEMM_EPILOGUE_KINDS, 'DEFAULT_C'];
  let index = 0;
  for (const config of DTYPE_CONFIGS) {
    const shapes = isFp8(config) ? FP8_SHAPES : SHAPES;
    for (const epilogue of epilogues) {
      for (const [transposeA, transposeB] of [[false, false], [false, true], [true, false], [true, true]] as const) {
        for (const batchMode of BATCH_MODES) {
          const [m, n, k] = shapes[index % shapes.length] as [number, number, number];
          index += 1;
          const batched = batchMode !== 'none';
          // Batches stay small: the reference costs batch · m·n·k.
          const batch = batched ? (m * n * k > 2e6 ? 2 : 3) : 1;
          const refusedField = expectedRefusal(config, epilogue, transposeA, transposeB, batched);
          const t = `${transposeA ? 'T' : 'N'}${transposeB ? 'T' : 'N'}`;
          cases.push({
            id: `${config.name} ${epilogue} ${t} ${batchMode} ${m}x${n}x${k}${batched ? `·${batch}` : ''}`,
            config,
            epilogue,
            transposeA,
            transposeB,
            batchMode,
            m,
            n,
            k,
            batch,
            ...(refusedField !== undefined ? { refusedField } : {}),
          });
        }
      }
    }
  }
  return cases;
}
