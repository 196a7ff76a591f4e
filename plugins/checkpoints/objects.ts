/**
 * Git objects and refs written in-process: the top tree, the commit and its ref of a checkpoint
 * are a few hundred bytes, and three `git` processes for them cost more than the whole stat pass
 * of a 20,000-file folder. The formats are git's stable on-disk ones (loose objects: zlib of
 * `<type> <size>\0<body>`, named by the SHA-1 of that; loose refs: the id and a newline).
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, renameSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";

function writeAtomically(path: string, data: Buffer | string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(temp, data);
  renameSync(temp, path);
}

/** Store a loose object; resolves to its id. */
export function writeObject(gitDir: string, type: "tree" | "commit", body: Buffer): string {
  const full = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
  const id = createHash("sha1").update(full).digest("hex");
  const path = join(gitDir, "objects", id.slice(0, 2), id.slice(2));
  try {
    // Already there: touched, as git does, so a prune in another process (which keeps unreachable
    // objects younger than its grace) does not take it before the new ref reaches it again.
    const now = new Date();
    utimesSync(path, now, now);
  } catch {
    writeAtomically(path, deflate(full));
  }
  return id;
}

/** A tree of subtrees named `0`, `1`, … (one per permitted folder). */
export function writeRootsTree(gitDir: string, trees: readonly string[]): string {
  // Entries sorted as git sorts them: by name bytes, a tree's name compared as if it ended in "/".
  const entries = trees
    .map((id, i) => ({ name: String(i), id }))
    .sort((a, b) => (`${a.name}/` < `${b.name}/` ? -1 : 1));
  const body = Buffer.concat(
    entries.map((e) => Buffer.concat([Buffer.from(`40000 ${e.name}\0`), Buffer.from(e.id, "hex")])),
  );
  return writeObject(gitDir, "tree", body);
}

/** A parentless commit of `tree` whose message is `message`. */
export function writeCommit(gitDir: string, tree: string, message: string): string {
  const who = `ubiquity <checkpoints@ubiquity.invalid> ${Math.floor(Date.now() / 1000)} +0000`;
  return writeObject(gitDir, "commit", Buffer.from(`tree ${tree}\nauthor ${who}\ncommitter ${who}\n\n${message}\n`));
}

/** Point the loose ref `ref` (`refs/…`) at `id`. */
export function writeRef(gitDir: string, ref: string, id: string): void {
  writeAtomically(join(gitDir, ref), `${id}\n`);
}

// node:zlib loads with the first object written, not with the plugin (cold start).
function deflate(data: Buffer): Buffer {
  return (createRequire(import.meta.url)("node:zlib") as typeof import("node:zlib")).deflateSync(data);
}
