/**
 * Path patterns for Read/Write/Edit/Glob/Grep rules, with .gitignore habits:
 * - no slash (`.env`, `*.pem`): that name at any depth
 * - `./x`, `a/b`: relative to the cwd;  `/x`: absolute;  `~/x`: under the home folder
 * - `**` crosses folders; a trailing `/` (or any match) covers everything below it
 * Patterns are matched with micromatch against absolute paths — never as a string prefix of
 * what the model typed. Both sides are compared in Unicode NFC; case is ignored where the
 * folder's file system folds it (probed per folder, not guessed per platform). A rule's literal
 * folder part is also matched through its symlinks, and a literal file rule also matches a hard
 * link to the same file.
 */
import { LINE_BREAKS, LINE_BREAKS_NOCASE, micromatch } from "../_kits/lazy/index";
import { lstatSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * A compiled path pattern. `absent()` is true when no existing path can match it now: a literal
 * path (no glob character, ASCII, so no other normal form) that does not exist, so neither it,
 * anything below it, a link to it nor another name of it can be read; a folder walk looking for
 * what the rule names can then be skipped.
 */
export type PathMatcher = ((absolutePath: string) => boolean) & {
  absent?: () => boolean;
  /**
   * Could it match `dir` or a path below it, whatever exists? False only when the pattern's
   * literal folders (and their resolved form) lie beside `dir`, neither above nor below it.
   */
  mayNameBelow?: (dir: string) => boolean;
};

const escapeGlob = (path: string) => path.replace(/[*?[\]{}()!+@\\]/g, "\\$&");
const GLOB_CHARS = /[*?[\]{}()!+@]/;

/** Compile a path pattern relative to `cwd` and `home`. */
export function compilePathPattern(pattern: string, cwd: string, home: string): PathMatcher {
  if (/^\/+$/.test(pattern.trim())) return () => true; // `/`: everything
  let p = pattern.trim().normalize("NFC").replace(/\/+$/, "");
  let absolute: string;
  if (p === "~" || p.startsWith("~/")) absolute = escapeGlob(home) + p.slice(1);
  else if (p.startsWith("/")) absolute = `/${p.replace(/^\/+/, "")}`;
  else if (p.startsWith("./")) absolute = `${escapeGlob(cwd)}/${p.slice(2)}`;
  else if (p === "." || p === "") absolute = escapeGlob(cwd);
  else if (p.includes("/")) absolute = `${escapeGlob(cwd)}/${p}`;
  else absolute = `**/${p}`; // a bare name: at any depth, anywhere
  p = absolute.replace(/\/{2,}/g, "/");
  const globs = [p];
  // The literal folders in front of the first glob character, resolved: `Read(./link/**)` also
  // covers where link points.
  const literal = literalPrefix(p);
  const real = literal ? realOrUndefined(literal) : undefined;
  if (literal && real && real !== literal) globs.push(escapeGlob(real) + p.slice(escapeGlob(literal).length));
  const exact = globs.flatMap((g) => [
    micromatch().matcher(g, { dot: true, ...LINE_BREAKS }),
    micromatch().matcher(`${g}/**`, { dot: true, ...LINE_BREAKS }),
  ]);
  const folded = globs.flatMap((g) => [
    micromatch().matcher(g, { dot: true, nocase: true, ...LINE_BREAKS_NOCASE }),
    micromatch().matcher(`${g}/**`, { dot: true, nocase: true, ...LINE_BREAKS_NOCASE }),
  ]);
  // A literal file: the same file under another name (a hard link) is the same file.
  const file = literal && literal === unescapeGlob(p) ? identity(literal) : undefined;
  const matcher: PathMatcher = (path) => {
    const nfc = path.normalize("NFC");
    if (exact.some((m) => m(nfc))) return true;
    if (foldsCase(nfc) && folded.some((m) => m(nfc))) return true;
    if (file) {
      const other = identity(path);
      if (other && other.dev === file.dev && other.ino === file.ino) return true;
    }
    return false;
  };
  // A pattern starting with a glob (`**/.env`) may name a path below any folder.
  const heads = globs.map(literalPrefix);
  matcher.mayNameBelow = (dir) => {
    const d = dir.normalize("NFC").replace(/\/+$/, "");
    const fold = foldsCase(d);
    return heads.some((head) => {
      if (head === undefined) return true;
      const [a, b] = fold ? [head.toLowerCase(), d.toLowerCase()] : [head, d];
      return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`) || b === "" || a === "";
    });
  };
  // lstat follows the links of the folders above, not of the last name: a dangling link there exists.
  if (literal && literal === unescapeGlob(p) && /^[\x20-\x7e]+$/.test(literal))
    matcher.absent = () => lstatSync(literal, { throwIfNoEntry: false }) === undefined;
  return matcher;
}

function unescapeGlob(glob: string): string {
  return glob.replace(/\\(.)/g, "$1");
}

/** The folders of a glob before its first unescaped glob character, unescaped (undefined when it starts with one). */
function literalPrefix(glob: string): string | undefined {
  const parts = glob.split("/");
  const out: string[] = [];
  for (const part of parts) {
    if (GLOB_CHARS.test(part.replace(/\\./g, ""))) break;
    out.push(unescapeGlob(part));
  }
  const prefix = out.join("/");
  return prefix.startsWith("/") ? prefix : undefined;
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

function identity(path: string): { dev: number; ino: number } | undefined {
  try {
    const s = statSync(path, { throwIfNoEntry: false });
    return s?.isFile() ? { dev: s.dev, ino: s.ino } : undefined;
  } catch {
    return undefined;
  }
}

const folding = new Map<string, boolean>();

/**
 * Does the file system holding `path` ignore case? Probed on the nearest existing ancestor whose
 * name has a letter: the same name in the other case names the same file there. Cached per folder.
 */
export function foldsCase(path: string): boolean {
  for (let dir = path; ; dir = dirname(dir)) {
    const name = basename(dir);
    if (/[a-zA-Z]/.test(name)) {
      const known = folding.get(dir);
      if (known !== undefined) return known;
      const here = lstatSync(dir, { throwIfNoEntry: false });
      if (here) {
        const swapped = join(
          dirname(dir),
          [...name].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join(""),
        );
        const there = lstatSync(swapped, { throwIfNoEntry: false });
        const folds = there !== undefined && there.ino === here.ino && there.dev === here.dev;
        folding.set(dir, folds);
        return folds;
      }
    }
    if (dirname(dir) === dir) return false;
  }
}
