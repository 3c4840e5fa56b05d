// Public API of @tsfuser/fusion-ir.
export const packageName = '@tsfuser/fusion-ir';
