// .npy files on disk, streamed both ways: reading opens the file, parses the preamble and header
// from their own small reads, allocates the tensor's storage and reads the data straight into it
// in chunks (no whole-file buffer, so no 2 GiB readFileSync limit); writing writes the header,
// then the dense data in chunks from the tensor's own storage. Invariant: at most one chunk
// (chunkBytes) is in flight beyond the tensor's storage, and the file descriptor is closed on
// every path, errors included.

import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { allocateStorage, dataTypeSize, type DataType, type HostTensor } from '@tsfuser/fusion-ir';
import { DEFAULT_ALLOCATION_LIMITS, type AllocationLimits } from './allocation-limits.js';
import { NpyError, npyHeaderBytes, parseNpyHeader, parseNpyPreamble } from './npy-header.js';
import { npyDescr, npyLayout, npyTensor, storageBytes } from './npy.js';

/** Bytes per read or write call (a test passes a small one to exercise the chunking). */
export const NPY_CHUNK_BYTES = 64 * 1024 * 1024;

/** A file-system failure (open, read, write), with Node's error code (ENOENT, EACCES, EISDIR…). */
export class NpyFileError extends Error {
  override readonly name = 'NpyFileError';
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

function errorCode(e: unknown): string {
  return e instanceof Error && 'code' in e && typeof e.code === 'string' ? e.code : 'EIO';
}

/** Reads exactly `target.length` bytes at `position`, in chunks; false when the file ends first. */
function readFully(fd: number, target: Uint8Array, position: number, chunkBytes: number): boolean {
  let done = 0;
  while (done < target.length) {
    const n = readSync(fd, target, done, Math.min(chunkBytes, target.length - done), position + done);
    if (n === 0) return false;
    done += n;
  }
  return true;
}

function withFile<T>(path: string, flags: 'r' | 'w', what: string, body: (fd: number) => T): T {
  let fd: number;
  try {
    fd = openSync(path, flags);
  } catch (e) {
    throw new NpyFileError(`cannot ${what} ${path} (${errorCode(e)})`, errorCode(e));
  }
  try {
    return body(fd);
  } catch (e) {
    if (e instanceof NpyError) throw e;
    throw new NpyFileError(`cannot ${what} ${path} (${errorCode(e)})`, errorCode(e));
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads the .npy at `path` (see readNpy for `want`). Format problems are NpyErrors,
 * file-system failures NpyFileErrors.
 */
export function readNpyFile(path: string, want?: DataType, limits: AllocationLimits = DEFAULT_ALLOCATION_LIMITS, chunkBytes = NPY_CHUNK_BYTES): HostTensor {
  return withFile(path, 'r', 'read', (fd) => {
    const fileLength = fstatSync(fd).size;
    const start = new Uint8Array(Math.min(12, fileLength));
    readFully(fd, start, 0, chunkBytes);
    const preamble = parseNpyPreamble(start, fileLength);
    const headerBytes = new Uint8Array(preamble.headerLength);
    readFully(fd, headerBytes, preamble.headerStart, chunkBytes);
    const header = parseNpyHeader(new TextDecoder(preamble.major === 3 ? 'utf-8' : 'latin1').decode(headerBytes));
    const { dtype, numel, byteCount } = npyLayout(header, want, limits);
    const dataStart = preamble.headerStart + preamble.headerLength;
    if (fileLength - dataStart < byteCount) throw new NpyError(`truncated data: shape (${header.shape.join(', ')}) needs ${byteCount} bytes, the file has ${fileLength - dataStart}`);
    const data = allocateStorage(dtype, numel);
    if (!readFully(fd, storageBytes(data, byteCount), dataStart, chunkBytes)) throw new NpyError(`truncated data: the file ended while reading it`);
    return npyTensor(header, dtype, data);
  });
}

/** Writes `t` as a C-order .npy to `path` (created or truncated): the header, then the data in chunks. */
export function writeNpyFile(path: string, t: HostTensor, chunkBytes = NPY_CHUNK_BYTES): void {
  const dense = t.isDense() ? t : t.contiguous();
  const header = npyHeaderBytes(npyDescr(dense.dtype), dense.sizes);
  const data = storageBytes(dense.data, dense.numel * dataTypeSize(dense.dtype));
  withFile(path, 'w', 'write', (fd) => {
    writeSync(fd, header);
    for (let offset = 0; offset < data.length; offset += chunkBytes) {
      const chunk = data.subarray(offset, Math.min(data.length, offset + chunkBytes));
      let written = 0;
      while (written < chunk.length) written += writeSync(fd, chunk, written, chunk.length - written);
    }
  });
}
