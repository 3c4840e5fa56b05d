// Public API of the printer module (re-exported from the package index).
export {};
