/**
 * The shadow store: one bare git repository per project under `~/.ubiquity/checkpoints/<project>`
 * (or the `dir` option), outside the workspace. A checkpoint is a commit whose tree holds one
 * subtree per permitted folder (`0`, `1`, …) and whose message is the checkpoint's JSON metadata;
 * a ref `refs/ubiquity/<sessionId>/<messageUuid>` keeps it. Each folder has its own index file in
 * the store, so a snapshot with nothing changed costs git's stat pass, not a re-hash.
 *
 * Retention (`prune`): the refs of checkpoints older than `keepDays` go, then `git prune` drops
 * the objects nothing reaches any more. An active session's checkpoints and a rewind's backups
 * are never pruned.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  closeSync,
  type Stats,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { isInside } from "../_kits/paths/index";
import { privateFolder } from "../_kits/storage/index";
import { git, GitError, nulList, type GitPlace } from "./git";
import { activeRuns } from "./lock";
import { storeDirFor } from "./place";
import { BINARY_MAX_BYTES, MAX_FILES_PER_SNAPSHOT } from "./options";
import { writeCommit, writeRef, writeRootsTree } from "./objects";

/** Why a file is not in a checkpoint (a rewind leaves it alone). */
export type NotCoveredReason = "ignored" | "too-large" | "binary" | "nested-repository" | "special-file";

/** A file (or folder) a checkpoint does not hold. */
export interface NotCovered {
  /** Absolute path. */
  path: string;
  reason: NotCoveredReason;
}

/** What a checkpoint's commit message records. */
export interface CheckpointMeta {
  sessionId: string;
  /** The assistant message whose turn was about to write (the checkpoint is the state before it). */
  messageUuid: string;
  /** The user message that started the run of that turn. */
  promptUuid?: string;
  /** ISO 8601. */
  createdAt: string;
  /** The permitted folders snapshotted, in subtree order. */
  roots: string[];
  /** Files the snapshot skipped (ignored files are not listed here: a rewind lists them itself). */
  notCovered: NotCovered[];
  /** The size limit the snapshot applied (a rewind snapshots the current state with the same). */
  maxBytes: number;
  /** Folders never snapshotted (the stores themselves when they lie inside a permitted folder), absolute. */
  exclude: string[];
}

/** What a snapshot is asked to record beside the state. */
export type SnapshotMeta = Omit<CheckpointMeta, "roots" | "notCovered" | "maxBytes" | "exclude">;

/** How a snapshot reads the folders. */
export interface SnapshotRules {
  maxBytes: number;
  exclude: readonly string[];
  /** At most this many new or changed files per folder [MAX_FILES_PER_SNAPSHOT]. */
  maxFiles?: number;
}

/** One checkpoint as stored. */
export interface StoredCheckpoint extends CheckpointMeta {
  /** The commit in the store. */
  commit: string;
  /** The store (a bare git repository). */
  store: string;
}

/** What `prune` drops. */
export interface PruneRules {
  /** Checkpoints taken before this time (ms since the epoch, their commit's date) are pruned. */
  before: number;
  /** Sessions whose checkpoints are kept whatever their age, beside those active in the store. */
  keepSessions?: Iterable<string>;
}

/**
 * Unreachable objects younger than this stay. A snapshot or rewind in another process writes its
 * blobs, trees and commit before the ref that makes them reachable; a prune in between must not
 * take them. Git's own discipline: its default is two weeks, and an hour is far longer than any
 * snapshot or rewind runs. Objects of pruned checkpoints (weeks old) are past it.
 */
export const PRUNE_GRACE = "1.hour.ago";

/** The last part of a rewind's backup ref (`refs/ubiquity/<session>/rewound-<digits of its time>`). */
export const BACKUP_PREFIX = "rewound-";

/** A folder too large to snapshot; the run goes on without checkpoints. */
export class TooManyFilesError extends GitError {
  override name = "TooManyFilesError";
}

export { storeDirFor };

const ATTRIBUTES = "* -text -crlf -ident -filter -working-tree-encoding\n";

const short = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

function isBinary(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(8000);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, n).includes(0);
  } finally {
    closeSync(fd);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An index file's identity on disk: another process that rewrote it changes it. */
function stampOf(path: string): string {
  const info = statSync(path, { throwIfNoEntry: false, bigint: true });
  return info ? `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}` : "";
}

// The tree each index file was last written as, by this process.
const trees = new Map<string, { tree: string; stamp: string }>();

// Snapshots of one store in this process run one at a time (they share index files).
const queues = new Map<string, Promise<unknown>>();

/** One project's shadow store. */
export class ShadowStore {
  constructor(readonly dir: string) {}

  #place(root?: string): GitPlace {
    return root === undefined
      ? { gitDir: this.dir }
      : { gitDir: this.dir, workTree: root, indexFile: join(this.dir, `index-${short(root)}`) };
  }

  /** Create the bare repository when it does not exist yet. */
  async init(): Promise<void> {
    // Copies of the project's files: no more readable than the project (a store made open before, closed).
    privateFolder(this.dir);
    if (existsSync(join(this.dir, "info", "attributes"))) return;
    if (!existsSync(join(this.dir, "HEAD"))) {
      await git(this.#place(), ["init", "--bare", "--quiet"]);
    }
    mkdirSync(join(this.dir, "info"), { recursive: true });
    // git never adds a `.git` entry; said here too, so a reader of the store sees the rule.
    writeFileSync(join(this.dir, "info", "exclude"), ".git\n");
    // Bytes as they are: the workspace's .gitattributes (eol, filters, encodings) must not
    // convert what is stored, or a restore would not be byte for byte. info/attributes wins over them.
    writeFileSync(join(this.dir, "info", "attributes"), ATTRIBUTES);
  }

  /**
   * True when the folder is a store this plugin made (its info/attributes is ours): a transcript
   * note naming any other git repository (the user's own `.git`, whose history a cloned repository
   * wrote) is not a checkpoint store, and nothing is read from or written into it.
   */
  isShadowStore(): boolean {
    try {
      return readFileSync(join(this.dir, "info", "attributes"), "utf8") === ATTRIBUTES;
    } catch {
      return false;
    }
  }

  /** Run `task` after every other snapshot or rewind of this store in this process. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const before = queues.get(this.dir) ?? Promise.resolve();
    const run = before.then(task, task);
    const tail = run.catch(() => undefined);
    queues.set(this.dir, tail);
    void tail.then(() => {
      if (queues.get(this.dir) === tail) queues.delete(this.dir);
    });
    return run;
  }

  /** git at this store, retried while another process holds the folder's index lock. */
  #git(root: string | undefined, args: string[], input?: string): Promise<Buffer> {
    return this.#gitAt(this.#place(root), args, input);
  }

  async #gitAt(place: GitPlace, args: string[], input?: string): Promise<Buffer> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await git(place, args, input);
      } catch (error) {
        if (!(error instanceof GitError) || !/index\.lock|\.lock': File exists/.test(error.message) || attempt >= 40)
          throw error;
        await sleep(50);
      }
    }
  }

  /** Bring one folder's index up to date with the folder; resolves to its tree and what it skipped. */
  async #snapshotRoot(
    root: string,
    { maxBytes, exclude, maxFiles = MAX_FILES_PER_SNAPSHOT }: SnapshotRules,
  ): Promise<{ tree: string; notCovered: NotCovered[] }> {
    // Untracked (not ignored) and changed files only: unchanged ones keep their index entry.
    const listed = new Set(
      nulList(await this.#git(root, ["ls-files", "-z", "--others", "--modified", "--exclude-standard"])),
    );
    if (listed.size > maxFiles) {
      throw new TooManyFilesError(
        `${root} has ${listed.size} new or changed files, more than the ${maxFiles} a checkpoint takes: ignore the bulk in .gitignore, or run with checkpoints off`,
      );
    }
    const skip = exclude.filter((e) => isInside(root, e) && e !== root).map((e) => `${relative(root, e)}/`);
    const add: string[] = [];
    const drop: string[] = [];
    const notCovered: NotCovered[] = [];
    // A path under a symlinked folder is not in the folder at all (lstat would follow the link out).
    const linked = new Map<string, boolean>();
    const underLink = (path: string): boolean => {
      const at = path.lastIndexOf("/");
      if (at < 0) return false;
      const parent = path.slice(0, at);
      let known = linked.get(parent);
      if (known === undefined) {
        known =
          underLink(parent) || lstatSync(join(root, parent), { throwIfNoEntry: false })?.isSymbolicLink() === true;
        linked.set(parent, known);
      }
      return known;
    };
    for (const path of listed) {
      if (skip.some((prefix) => path.startsWith(prefix) || `${path}/` === prefix)) continue; // never added, so never in a tree
      if (path.endsWith("/")) {
        notCovered.push({ path: join(root, path.slice(0, -1)), reason: "nested-repository" });
        continue;
      }
      const full = join(root, path);
      if (underLink(path)) {
        drop.push(path);
        continue;
      }
      let info: Stats;
      try {
        info = lstatSync(full);
      } catch {
        add.push(path); // gone: `--remove` drops it from the index
        continue;
      }
      if (info.isSymbolicLink()) add.push(path);
      else if (info.isFile()) {
        if (info.size > maxBytes) notCovered.push({ path: full, reason: "too-large" });
        else if (info.size > BINARY_MAX_BYTES && isBinary(full)) notCovered.push({ path: full, reason: "binary" });
        else {
          add.push(path);
          continue;
        }
        drop.push(path);
      } else if (info.isDirectory())
        drop.push(path); // a file became a folder; its files are listed themselves
      else {
        notCovered.push({ path: full, reason: "special-file" });
        drop.push(path);
      }
    }
    const z = (paths: string[]) => `${paths.join("\0")}\0`;
    if (drop.length) await this.#git(root, ["update-index", "-z", "--force-remove", "--stdin"], z(drop));
    if (add.length) await this.#git(root, ["update-index", "-z", "--add", "--remove", "--replace", "--stdin"], z(add));
    // Nothing changed and the index is as this process left it: its tree is the one written last time.
    const index = this.#place(root).indexFile!;
    const known = trees.get(index);
    if (drop.length === 0 && add.length === 0 && known && known.stamp === stampOf(index))
      return { tree: known.tree, notCovered };
    const tree = (await this.#git(root, ["write-tree"])).toString("utf8").trim();
    trees.set(index, { tree, stamp: stampOf(index) });
    return { tree, notCovered };
  }

  /** The current state of `roots` as a commit carrying `meta` (not yet under a ref). */
  async commitState(
    roots: readonly string[],
    rules: SnapshotRules,
    meta: SnapshotMeta,
  ): Promise<{ commit: string; meta: CheckpointMeta }> {
    await this.init();
    const trees: string[] = [];
    const notCovered: NotCovered[] = [];
    for (const root of roots) {
      const snap = await this.#snapshotRoot(root, rules);
      trees.push(snap.tree);
      notCovered.push(...snap.notCovered);
    }
    const top = writeRootsTree(this.dir, trees);
    const full: CheckpointMeta = {
      ...meta,
      roots: [...roots],
      notCovered,
      maxBytes: rules.maxBytes,
      exclude: [...rules.exclude],
    };
    const commit = writeCommit(this.dir, top, JSON.stringify(full));
    return { commit, meta: full };
  }

  /** Take a checkpoint: the state of `roots`, kept under the ref of its session and message. */
  async snapshot(roots: readonly string[], rules: SnapshotRules, meta: SnapshotMeta): Promise<StoredCheckpoint> {
    return this.exclusive(async () => {
      const { commit, meta: full } = await this.commitState(roots, rules, meta);
      writeRef(this.dir, refOf(meta.sessionId, meta.messageUuid), commit);
      return { ...full, commit, store: this.dir };
    });
  }

  /** Keep `commit` under `ref` (the state a rewind replaced). */
  async keep(ref: string, commit: string): Promise<void> {
    writeRef(this.dir, ref, commit);
  }

  /**
   * Drop the checkpoints taken before `rules.before`, except those of sessions active in the store
   * (and `rules.keepSessions`) and rewinds' backups; then the objects nothing reaches any more,
   * past `PRUNE_GRACE`. Resolves to the refs deleted. Runs after every other snapshot or rewind of
   * this store in this process; other processes are covered by the grace (see `PRUNE_GRACE`).
   */
  async prune(rules: PruneRules): Promise<string[]> {
    return this.exclusive(async () => {
      if (!this.isShadowStore()) return [];
      // Each folder's index names the blobs of its files as last snapshotted, and the next snapshot
      // reuses every unchanged entry without hashing it again (and this process may reuse the
      // index's tree itself): the index's tree is kept as if a ref held it, or a folder whose
      // checkpoints were all pruned could no longer be snapshotted. Computed before any ref goes,
      // so a corrupt index stops the prune with nothing deleted.
      const heads: string[] = [];
      for (const name of readdirSync(this.dir)) {
        if (!/^index-[0-9a-f]{16}$/.test(name)) continue;
        heads.push(
          (await this.#gitAt({ gitDir: this.dir, indexFile: join(this.dir, name) }, ["write-tree"]))
            .toString("utf8")
            .trim(),
        );
      }
      // Read after the heads: a run that started meanwhile is still seen as active.
      const keep = new Set([...activeRuns(this.dir).map((r) => r.sessionId), ...(rules.keepSessions ?? [])]);
      const out = (
        await this.#git(undefined, ["for-each-ref", "--format=%(refname)%00%(committerdate:unix)", "refs/ubiquity/"])
      ).toString("utf8");
      const drop: string[] = [];
      for (const line of out.split("\n")) {
        const [ref = "", date = ""] = line.split("\0");
        const parts = /^refs\/ubiquity\/([^/]+)\/(.+)$/.exec(ref);
        if (!parts || keep.has(parts[1]!)) continue;
        // A backup holds what a rewind replaced (the user's own edits, maybe): the only copy, so never dropped by age.
        if (parts[2]!.startsWith(BACKUP_PREFIX)) continue;
        if (Number(date) * 1000 < rules.before) drop.push(ref);
      }
      // One transaction; no expected old value, so a ref another prune already deleted is no failure.
      if (drop.length > 0)
        await this.#git(undefined, ["update-ref", "--stdin"], drop.map((ref) => `delete ${ref}\n`).join(""));
      // Run even when no ref went: objects kept by the grace last time (or left by a failed rewind) go now.
      // `git prune` removes loose objects, the only kind this plugin writes (gc.auto=0); it takes ~0.2 s
      // on 4,000 files × 100 checkpoints where `git gc --prune=now` (a repack) took 1.3 s. A store
      // someone packed by hand keeps its packs.
      await this.#git(undefined, ["prune", `--expire=${PRUNE_GRACE}`, "--", ...heads]);
      return drop;
    });
  }

  /** A checkpoint's metadata, from its commit. */
  async read(commit: string): Promise<StoredCheckpoint> {
    const text = (await this.#git(undefined, ["cat-file", "commit", commit])).toString("utf8");
    const body = text.slice(text.indexOf("\n\n") + 2).trimEnd();
    return { ...(JSON.parse(body) as CheckpointMeta), commit, store: this.dir };
  }

  /** The commits a ref of the session keeps (its checkpoints and rewind backups); pruned ones are not among them. */
  async kept(sessionId: string): Promise<Set<string>> {
    if (!existsSync(join(this.dir, "HEAD"))) return new Set();
    const out = (
      await this.#git(undefined, ["for-each-ref", "--format=%(objectname)", `refs/ubiquity/${sessionId}/`])
    ).toString("utf8");
    return new Set(out.split("\n").filter(Boolean));
  }

  /** The checkpoints of a session stored here, oldest first. */
  async list(sessionId: string): Promise<StoredCheckpoint[]> {
    const found = await Promise.all([...(await this.kept(sessionId))].map((c) => this.read(c)));
    return found.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }

  /** Paths that differ between root `i` of two commits: `[status, path, mode, blob]` of the first commit's side. */
  async diff(
    from: string,
    to: string,
    i: number,
  ): Promise<{ status: string; path: string; mode: string; blob: string }[]> {
    const out = nulList(
      await this.#git(undefined, [
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        "--no-commit-id",
        `${from}:${i}`,
        `${to}:${i}`,
      ]),
    );
    const changes = [];
    for (let k = 0; k + 1 < out.length; k += 2) {
      // ":<from mode> <to mode> <from blob> <to blob> <status>"
      const [fromMode = "", , fromBlob = "", , status = ""] = out[k]!.slice(1).split(" ");
      changes.push({ status, path: out[k + 1]!, mode: fromMode, blob: fromBlob });
    }
    return changes;
  }

  /** The content of blobs, by id. */
  async blobs(ids: readonly string[]): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    // One cat-file per blob would cost a process each; --batch reads them all in one.
    const unique = [...new Set(ids)];
    if (unique.length === 0) return out;
    const data = await this.#git(undefined, ["cat-file", "--batch"], `${unique.join("\n")}\n`);
    let at = 0;
    for (const id of unique) {
      const eol = data.indexOf(10, at);
      const header = data.subarray(at, eol).toString("utf8").split(" ");
      const size = Number(header[2]);
      if (header[1] !== "blob" || !Number.isFinite(size))
        throw new GitError(`the checkpoint store ${this.dir} lacks blob ${id}`);
      out.set(id, data.subarray(eol + 1, eol + 1 + size));
      at = eol + 1 + size + 1;
    }
    return out;
  }

  /** The folders of root `i` of a commit (every parent of a file it holds), relative. */
  async folders(commit: string, i: number): Promise<Set<string>> {
    const files = nulList(await this.#git(undefined, ["ls-tree", "-r", "-z", "--name-only", `${commit}:${i}`]));
    const out = new Set<string>();
    for (const file of files)
      for (let at = file.indexOf("/"); at >= 0; at = file.indexOf("/", at + 1)) out.add(file.slice(0, at));
    return out;
  }

  /** Ignored files and folders of `root` (folders collapsed), absolute. */
  async ignored(root: string): Promise<string[]> {
    const out = nulList(
      await this.#git(root, ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]),
    );
    return out.map((p) => join(root, p.replace(/\/$/, "")));
  }
}

/** The ref of a checkpoint. */
export function refOf(sessionId: string, messageUuid: string): string {
  return `refs/ubiquity/${sessionId}/${messageUuid}`;
}

/** The ref of a rewind's backup made at `at` (ISO 8601). */
export function backupRefOf(sessionId: string, at: string): string {
  return `refs/ubiquity/${sessionId}/${BACKUP_PREFIX}${at.replace(/[^0-9]/g, "")}`;
}
