// Public API of @tsfuser/codegen.
export const packageName = '@tsfuser/codegen';
