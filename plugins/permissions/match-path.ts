/**
 * Path patterns for Read/Write/Edit/Glob/Grep rules, with .gitignore habits:
 * - no slash (`.env`, `*.pem`): that name at any depth
 * - `./x`, `a/b`: relative to the cwd;  `/x`: absolute;  `~/x`: under the home folder
 * - `**` crosses folders; a trailing `/` (or any match) covers everything below it
 * Patterns are matched with micromatch against absolute paths — never as a string prefix of
 * what the model typed.
 */
import micromatch from "micromatch";
import { platform } from "node:os";

/** A compiled path pattern. */
export type PathMatcher = (absolutePath: string) => boolean;

// Case-insensitive file systems: `.ENV` is `.env` there, so a deny must not miss it.
const NOCASE = platform() === "darwin" || platform() === "win32";

const escapeGlob = (path: string) => path.replace(/[*?[\]{}()!+@\\]/g, "\\$&");

/** Compile a path pattern relative to `cwd` and `home`. */
export function compilePathPattern(pattern: string, cwd: string, home: string): PathMatcher {
  if (/^\/+$/.test(pattern.trim())) return () => true; // `/`: everything
  let p = pattern.trim().replace(/\/+$/, "");
  let absolute: string;
  if (p === "~" || p.startsWith("~/")) absolute = escapeGlob(home) + p.slice(1);
  else if (p.startsWith("/")) absolute = `/${p.replace(/^\/+/, "")}`;
  else if (p.startsWith("./")) absolute = `${escapeGlob(cwd)}/${p.slice(2)}`;
  else if (p === "." || p === "") absolute = escapeGlob(cwd);
  else if (p.includes("/")) absolute = `${escapeGlob(cwd)}/${p}`;
  else absolute = `**/${p}`; // a bare name: at any depth, anywhere
  p = absolute.replace(/\/{2,}/g, "/");
  // Matching a folder covers what is inside it.
  const options = { dot: true, nocase: NOCASE };
  const matchers = [micromatch.matcher(p, options), micromatch.matcher(`${p}/**`, options)];
  return (path) => matchers.some((m) => m(path));
}
