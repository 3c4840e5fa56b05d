// Public API of @tsfuser/graph-fuser.
export const packageName = '@tsfuser/graph-fuser';
export * from './parse-jit-ir/index.js';
