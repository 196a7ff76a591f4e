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

/**
 * Ignore patterns for a glob: every skipped folder, except those the pattern names itself
 * (`dist/**\/*.js` should look inside dist).
 */
export function ignorePatterns(pattern: string): string[] {
  const named = new Set(pattern.split("/"));
  return SKIPPED_FOLDERS.filter((folder) => !named.has(folder)).map((folder) => `**/${folder}/**`);
}
