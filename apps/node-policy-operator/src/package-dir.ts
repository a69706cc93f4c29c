/** This package's root, one level up from src/ and from dist/: its package.json says the release. */
export const PACKAGE_DIR = new URL('../', import.meta.url);
