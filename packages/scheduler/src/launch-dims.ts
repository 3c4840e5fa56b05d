// Launch dimensions every scheduler's parameters carry. Its own file so that each scheduler's
// params.ts depends only on it, and heuristic-params.ts (the union of all parameters) depends on
// the params.ts files — never the other way round (no import cycle).

export interface LaunchDims {
  gdimx: number;
  gdimy: number;
  gdimz: number;
  bdimx: number;
  bdimy: number;
  bdimz: number;
}
