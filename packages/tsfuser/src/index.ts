// Public API of tsfuser.
export const packageName = 'tsfuser';
