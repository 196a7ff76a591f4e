/**
 * Where per-project state lives on disk: sessions and todos both keep one folder per project
 * under a root (`~/.ubiquity/<kind>` unless an option names another), named by a slug of the cwd.
 */
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { absolutePath } from "../../../src/index";

/**
 * The folder name of a project: the absolute cwd with every character outside `[A-Za-z0-9]`
 * turned into `-`, plus a short hash of the cwd. The readable part lets a person find the
 * folder; the hash keeps `/a-b` and `/a/b` apart (the readable parts collide).
 */
export function projectSlug(cwd: string): string {
  const absolute = resolve(cwd);
  const readable = absolute.replace(/[^A-Za-z0-9]/g, "-").slice(-80);
  const hash = createHash("sha256").update(absolute).digest("hex").slice(0, 8);
  return `${readable}-${hash}`;
}

/** The root folder of a store: `option` (with `~` expanded, relative to `cwd`) or `~/.ubiquity/<kind>`. */
export function storageRoot(option: string | undefined, cwd: string, kind: string): string {
  if (option === undefined || option === "") return join(homedir(), ".ubiquity", kind);
  return absolutePath(cwd, option);
}
