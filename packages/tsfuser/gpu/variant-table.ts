// The table the kernel-variant GPU entries print (tsfuser-resize-variants,
// tsfuser-transpose-variants): one row a variant — grid / block, median time, GB/s of the
// workload's bytes, % of the device-to-device copy floor, and whether its output matched.

/** One timed variant's row; `launch` null where the variant is a patched copy of another kernel. */
export function variantRow(workload: string, variant: string, launch: { grid: readonly number[]; block: readonly number[] } | null, ms: number, bytes: number, floorGbs: number, same: boolean): string {
  const gbs = bytes / (ms * 1e-3) / 1e9;
  const shape = launch === null ? '' : `${launch.grid.join('x')} / ${launch.block.join('x')}`;
  return `| ${workload} | ${variant} | ${shape} | ${(ms * 1000).toFixed(1)} µs | ${gbs.toFixed(0)} GB/s | ${((100 * gbs) / floorGbs).toFixed(1)}% | ${same ? 'same' : 'DIFFERENT'} |`;
}

/** The row of a variant that failed to compile or run. */
export function variantErrorRow(workload: string, variant: string, error: unknown): string {
  return `| ${workload} | ${variant} | error: ${(error as Error).message.split('\n').slice(0, 2).join(' ')} | | | | |`;
}

/** Prints the table after its header line (copy floor and runs per variant). */
export function printVariantTable(floorGbs: number, iters: number, rows: readonly string[]): void {
  console.log(`copy floor (device-to-device, 1 GiB): ${floorGbs.toFixed(0)} GB/s; ${iters} runs per variant, median`);
  console.log('| workload | variant | grid / block | median | GB/s | of floor | output |\n|---|---|---|---:|---:|---:|---|');
  console.log(rows.join('\n'));
}
