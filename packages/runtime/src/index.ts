// Public API of @tsfuser/runtime.
export const packageName = '@tsfuser/runtime';
