// Public API of @tsfuser/jit-ir.
export const packageName = '@tsfuser/jit-ir';
