// Public API of the eval module (re-exported from the package index).
export {};
