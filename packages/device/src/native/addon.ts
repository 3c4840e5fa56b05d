// Locates and loads tsfuser_runtime.node, and declares its interface.
//
// The addon is looked for, in order: $TSFUSER_ADDON_PATH; tsfuser_runtime.node beside the
// running module (the GPU bundle puts it there); build/Release/tsfuser_runtime.node in this
// module's directory or up to three levels above it (src/native/ in tests, dist/ when built).
// Loading it never touches CUDA, so this succeeds on machines without a GPU.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CudaError } from '../errors.js';
import type { GemmNative } from '../gemm/gemm-library.js';

export const ADDON_FILE = 'tsfuser_runtime.node';

export interface NativeProbe {
  driverLoaded: boolean;
  driverReason: string;
  driverVersion: number;
  deviceCount: number;
  nvrtcLoaded: boolean;
  nvrtcReason: string;
  nvrtcPath: string;
  nvrtcMajor: number;
  nvrtcMinor: number;
}

export interface NativeCompileResult {
  status: number;
  statusText: string;
  log: string;
  cubin: Uint8Array | null;
  ptx: string | null;
}

export type Handle = bigint;
type Bytes = ArrayBufferView | ArrayBuffer;

/** The functions tsfuser_runtime.node exports (see native/bind_*.cc; cuBLASLt's in GemmNative). */
export interface NativeAddon extends GemmNative {
  abiVersion: number;
  setErrorClass(ctor: typeof CudaError): void;
  probe(): NativeProbe;
  deviceGet(ordinal: number): number;
  deviceName(device: number): string;
  deviceAttribute(device: number, attribute: number): number;
  deviceTotalMem(device: number): number;
  primaryContextRetain(device: number): Handle;
  primaryContextRelease(device: number): void;
  contextSetCurrent(context: Handle): void;
  contextSynchronize(): void;
  streamCreate(flags: number): Handle;
  streamDestroy(stream: Handle): void;
  streamSynchronize(stream: Handle): void;
  streamWaitEvent(stream: Handle, event: Handle): void;
  memGetInfo(): { free: number; total: number };
  memAlloc(bytes: bigint | number): bigint;
  memFree(pointer: bigint): void;
  memcpyHtoD(destination: bigint, source: Bytes, sourceByteOffset: number, byteCount: number): void;
  memcpyDtoH(destination: Bytes, destinationByteOffset: number, source: bigint, byteCount: number): void;
  memcpyDtoD(destination: bigint, source: bigint, byteCount: bigint | number): void;
  memsetD8(pointer: bigint, value: number, byteCount: bigint | number): void;
  eventCreate(flags: number): Handle;
  eventDestroy(event: Handle): void;
  eventRecord(event: Handle, stream: Handle): void;
  eventSynchronize(event: Handle): void;
  eventElapsedTime(start: Handle, end: Handle): number;
  nvrtcVersion(): { major: number; minor: number; path: string };
  nvrtcCompile(
    source: string,
    name: string,
    options: readonly string[],
    headerNames: readonly string[],
    headerSources: readonly string[],
    wantPtx: boolean,
  ): NativeCompileResult;
  moduleLoadData(image: Bytes): Handle;
  moduleUnload(module: Handle): void;
  moduleGetFunction(module: Handle, name: string): Handle;
  funcGetAttribute(fn: Handle, attribute: number): number;
  funcSetAttribute(fn: Handle, attribute: number, value: number): void;
  funcParamInfo(fn: Handle): { offset: number; size: number }[] | null;
  /** Blocks of `fn` one SM holds at once (cuOccupancyMaxActiveBlocksPerMultiprocessor), null when the driver lacks it. */
  occupancy(fn: Handle, blockSize: number, dynamicSharedBytes: number): number | null;
  /** cuStreamBeginCapture_v2: later work on `stream` is recorded into a graph (mode: 0 global, 1 thread-local, 2 relaxed). */
  streamBeginCapture(stream: Handle, mode: number): void;
  /** cuStreamEndCapture: the captured graph. */
  streamEndCapture(stream: Handle): Handle;
  /** cuGraphInstantiateWithFlags(…, 0): the executable graph. */
  graphInstantiate(graph: Handle): Handle;
  graphLaunch(exec: Handle, stream: Handle): void;
  graphExecDestroy(exec: Handle): void;
  graphDestroy(graph: Handle): void;
  /**
   * Records a launch whose configuration and argument size are fixed (checked as launchKernel
   * checks them) → its id. Absent from addons built before it (KernelFunction.prepare then answers null).
   */
  prepareLaunch?(
    fn: Handle,
    gridX: number,
    gridY: number,
    gridZ: number,
    blockX: number,
    blockY: number,
    blockZ: number,
    sharedBytes: number,
    stream: Handle,
    argumentBuffer: Uint8Array,
  ): number;
  /** Launches a prepared launch with the buffer's current bytes (the prepared size). */
  launchPrepared?(id: number, argumentBuffer: Uint8Array): void;
  /** Forgets a prepared launch. */
  releaseLaunch?(id: number): void;
  launchKernel(
    fn: Handle,
    gridX: number,
    gridY: number,
    gridZ: number,
    blockX: number,
    blockY: number,
    blockZ: number,
    sharedBytes: number,
    stream: Handle,
    argumentBuffer: Uint8Array,
  ): void;
}

export type AddonLoad =
  | { ok: true; addon: NativeAddon; path: string }
  | { ok: false; reason: string; searched: string[] };

let cached: AddonLoad | undefined;

/** Candidate paths, most specific first. */
export function addonSearchPaths(moduleDir: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const paths: string[] = [];
  const explicit = env.TSFUSER_ADDON_PATH;
  if (explicit !== undefined && explicit !== '') paths.push(resolve(explicit));
  paths.push(join(moduleDir, ADDON_FILE));
  let dir = moduleDir;
  for (let up = 0; up <= 3; up += 1) {
    paths.push(join(dir, 'build', 'Release', ADDON_FILE));
    dir = dirname(dir);
  }
  return paths;
}

/** Loads the addon once; later calls return the same outcome. Never throws. */
/** The native functions this runtime calls (tsfuser_runtime.node's `abiVersion`). */
export const ADDON_ABI_VERSION = 4;

/** Why an addon built for another ABI cannot be used (null when `abiVersion` matches). */
export function staleAddonReason(path: string, abiVersion: unknown): string | null {
  if (abiVersion === ADDON_ABI_VERSION) return null;
  return `${path} is a stale build (ABI ${String(abiVersion)}, this device layer needs ${ADDON_ABI_VERSION}): rebuild it with \`pnpm --filter @tsfuser/device build\``;
}

export function loadAddon(): AddonLoad {
  if (cached !== undefined) return cached;
  const moduleDir = dirname(fileURLToPath(import.meta.url));
  const searched = addonSearchPaths(moduleDir);
  const found = searched.find((path) => existsSync(path));
  if (found === undefined) {
    cached = {
      ok: false,
      reason: `${ADDON_FILE} not found (build it with \`pnpm --filter @tsfuser/device build\`); looked in: ${searched.join(', ')}`,
      searched,
    };
    return cached;
  }
  try {
    const require = createRequire(import.meta.url);
    const addon = require(found) as NativeAddon;
    const stale = staleAddonReason(found, addon.abiVersion);
    if (stale !== null) {
      cached = { ok: false, reason: stale, searched };
      return cached;
    }
    addon.setErrorClass(CudaError);
    cached = { ok: true, addon, path: found };
  } catch (error) {
    cached = { ok: false, reason: `${found} failed to load: ${(error as Error).message}`, searched };
  }
  return cached;
}
