// Public API of @tsfuser/scheduler.
export const packageName = '@tsfuser/scheduler';
