// NVRTC compilation of CUDA C++ to a cubin for one GPU architecture.

import { CompileError } from './errors.js';
import type { NativeAddon } from './native/addon.js';

export interface NvrtcOptions {
  /** Target, e.g. "sm_90"; DeviceContext.compile fills in the device's own. */
  arch: string;
  /** Extra NVRTC options, passed through (e.g. "-default-device", "--std=c++17", "-lineinfo"). */
  options?: readonly string[];
  /** Source name in diagnostics; default "kernel.cu". */
  name?: string;
  /** Headers the source may #include, by include name. */
  headers?: Readonly<Record<string, string>>;
  /** Also return the PTX. */
  wantPtx?: boolean;
}

export interface NvrtcOutput {
  cubin: Uint8Array;
  /** NVRTC's log (warnings); empty when it had nothing to say. */
  log: string;
  ptx?: string;
  arch: string;
  /** Every option handed to NVRTC, the architecture flag first. */
  options: readonly string[];
  compileMs: number;
}

export function nvrtcOptions(options: NvrtcOptions): string[] {
  return [`--gpu-architecture=${options.arch}`, ...(options.options ?? [])];
}

export function compileWithNvrtc(addon: NativeAddon, source: string, options: NvrtcOptions): NvrtcOutput {
  const name = options.name ?? 'kernel.cu';
  const allOptions = nvrtcOptions(options);
  const headers = Object.entries(options.headers ?? {});
  const start = performance.now();
  const result = addon.nvrtcCompile(
    source,
    name,
    allOptions,
    headers.map(([include]) => include),
    headers.map(([, text]) => text),
    options.wantPtx ?? false,
  );
  const compileMs = performance.now() - start;
  if (result.status !== 0) {
    throw new CompileError(
      `NVRTC failed to compile ${name} (${result.statusText}) with ${allOptions.join(' ')}:\n${result.log}`,
      result.log,
      name,
      allOptions,
    );
  }
  if (result.cubin === null) {
    throw new CompileError(
      `NVRTC produced no cubin for ${name}: ${options.arch} must be a real architecture (sm_XX), not compute_XX`,
      result.log,
      name,
      allOptions,
    );
  }
  const compiled: NvrtcOutput = { cubin: result.cubin, log: result.log, arch: options.arch, options: allOptions, compileMs };
  if (result.ptx !== null) compiled.ptx = result.ptx;
  return compiled;
}
