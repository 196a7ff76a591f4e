/**
 * The files a project memory file includes (`@path`), found without reading them into a prompt:
 * what trusting its folder approves with it, so a changed include is named and skipped like a
 * changed memory file. Over-approximates the loader's own walk (every include under the cwd that
 * names a text file, to its depth limit): approving one more file costs nothing.
 */
import { realpathSync } from "node:fs";
import { dirname, extname } from "node:path";
import { absolutePath } from "../../src/index";
import { readRegularFileSync } from "../../loader/index";
import { isInside } from "../_kits/paths/index";
import { findIncludes } from "./includes";
import { MAX_INCLUDE_DEPTH, MAX_MEMORY_CHARS, TEXT_EXTENSIONS } from "./load";

const realOrUndefined = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

/** Every file `memoryFile` includes, transitively, that lies under `cwd` (by real path); not `memoryFile` itself. */
export function includedFiles(memoryFile: string, cwd: string, home: string): string[] {
  const root = realOrUndefined(cwd) ?? cwd;
  const seen = new Set<string>([realOrUndefined(memoryFile) ?? memoryFile]);
  const out: string[] = [];
  const visit = (path: string, depth: number) => {
    const read = readRegularFileSync(path, MAX_MEMORY_CHARS * 4 + 4);
    if (!read.ok || depth >= MAX_INCLUDE_DEPTH) return;
    for (const ref of findIncludes(read.text)) {
      const target = absolutePath(dirname(path), ref, home);
      if (!TEXT_EXTENSIONS.has(extname(target).toLowerCase())) continue;
      const real = realOrUndefined(target);
      if (!real || seen.has(real) || !isInside(root, real)) continue;
      seen.add(real);
      out.push(target);
      visit(target, depth + 1);
    }
  };
  visit(memoryFile, 0);
  return out;
}
