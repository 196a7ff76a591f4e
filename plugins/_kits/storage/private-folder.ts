/**
 * The folder a store keeps one project's data in (checkpoints' copies of its files, its todo
 * lists), closed to everyone but its owner: a copy must be no more readable than the project it
 * came from. A 0600 source file in a 0700 project was kept as a 0444 git object in 0755 folders of
 * a 0755 `~/.ubiquity`, readable by every user of the machine (red team zc, ZC4).
 */
import { chmodSync, mkdirSync, statSync } from "node:fs";

/** Make `dir` (and its missing parents) 0700; one found open to the group or others is closed (it is the store's own). */
export function privateFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mode = statSync(dir).mode & 0o7777;
  if ((mode & 0o077) !== 0) chmodSync(dir, mode & 0o700);
}
