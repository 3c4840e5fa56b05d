// Public API of @tsfuser/graph-fuser.
export const packageName = '@tsfuser/graph-fuser';
export * from './parse-jit-ir/index.js';
export * from './fuser/index.js';
export * from './guard/index.js';
export * from './run/index.js';
