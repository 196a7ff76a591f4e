/** Folders Glob does not descend into: version control, dependencies, build output, caches. */
export const SKIPPED_FOLDERS: readonly string[] = Object.freeze([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  "dist",
  "build",
  "target",
  "coverage",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".turbo",
  ".cache",
  ".parcel-cache",
  ".gradle",
  "__pycache__",
  ".pytest_cache",
  ".mypy_cache",
  ".ruff_cache",
  ".tox",
  ".venv",
  "venv",
]);

/** The folders to skip for a glob: all of them, except those the pattern names (`dist/**\/*.js` looks inside dist). */
export function skippedFor(pattern: string): Set<string> {
  const named = new Set(pattern.split("/"));
  return new Set(SKIPPED_FOLDERS.filter((folder) => !named.has(folder)));
}

/** The same folders as tinyglobby `ignore` patterns (what a caller of tinyglobby would write). */
export function ignorePatterns(pattern: string): string[] {
  return [...skippedFor(pattern)].map((folder) => `**/${folder}/**`);
}
