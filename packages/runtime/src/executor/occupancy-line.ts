// The `occupancy` dump line, as nvFuser's KernelExecutor prints it before a launch:
// `num_sms=…, blocks_per_sm=…, warps_per_sm=…, occupancy=…%`, where warps_per_sm counts the
// resident blocks' threads in warps and occupancy is those warps over the SM's maximum.
// Invariant: the same numbers give the same text, whether blocks_per_sm came from the driver
// (cuOccupancyMaxActiveBlocksPerMultiprocessor, on the GPU) or from ptxas's register count on a
// machine without one (tsfuser's compile-side dumps).

export interface OccupancyFigures {
  numSms: number;
  blocksPerSm: number;
  threadsPerBlock: number;
  warpSize: number;
  maxThreadsPerSm: number;
}

export function occupancyPercent(f: OccupancyFigures): number {
  const warpsPerSm = Math.ceil((f.blocksPerSm * f.threadsPerBlock) / f.warpSize);
  return (warpsPerSm / (f.maxThreadsPerSm / f.warpSize)) * 100;
}

export function occupancyLine(f: OccupancyFigures): string {
  const warpsPerSm = Math.ceil((f.blocksPerSm * f.threadsPerBlock) / f.warpSize);
  return `num_sms=${f.numSms}, blocks_per_sm=${f.blocksPerSm}, warps_per_sm=${warpsPerSm}, occupancy=${occupancyPercent(f).toFixed(2)}%\n`;
}
