/**
 * The files a session watches for FileChanged (and ConfigChange): each path's folder is watched
 * (Node's fs.watch, not recursive), so a file that is created, replaced by a rename (as editors
 * save) or deleted is seen as well as one written in place. What happened is judged by comparing
 * the file's state before and after (`add`, `change`, `unlink`), so the several events one write
 * makes are reported once. The watchers never keep the process alive and are closed with `close()`.
 */
import { type FSWatcher, type Stats, statSync, watch } from "node:fs";
import { basename, dirname, isAbsolute } from "node:path";

/** Claude Code's names for what happened to a watched file. */
export type FileEvent = "add" | "change" | "unlink";

/** The most paths one session watches; more are skipped with a warning (a hook cannot make it watch the disk). */
export const MAX_WATCHED_PATHS = 256;
/** The most folders one session watches (one watcher each). */
export const MAX_WATCHED_FOLDERS = 64;
// fs.watch reports one save as several events in a burst: the file is judged once they pass.
const SETTLE_MS = 50;

/** What a file looked like when last judged (undefined: it did not exist). */
type Seen = string | undefined;

function stateOf(path: string): Seen {
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch {
    return undefined;
  }
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.isFile() ? "f" : "o"}`;
}

interface Folder {
  watcher: FSWatcher;
  names: Set<string>;
}

/** Watches a set of absolute file paths; `onEvent` hears of each change once it settles. */
export class FileWatch {
  readonly #folders = new Map<string, Folder>();
  readonly #seen = new Map<string, Seen>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  #closed = false;

  constructor(
    private readonly onEvent: (path: string, event: FileEvent) => void,
    private readonly warn: (message: string) => void,
  ) {}

  /** The paths watched now. */
  get paths(): string[] {
    return [...this.#seen.keys()];
  }

  /** Watch exactly `paths` (absolute; others are skipped with a warning): new ones start, dropped ones stop. */
  set(paths: readonly string[]): void {
    if (this.#closed) return;
    const wanted = new Set<string>();
    for (const path of paths) {
      if (!isAbsolute(path)) this.warn(`${JSON.stringify(path)} is not an absolute path; not watched`);
      else if (wanted.size >= MAX_WATCHED_PATHS) {
        this.warn(`more than ${MAX_WATCHED_PATHS} paths to watch; ${path} and the rest are not watched`);
        break;
      } else wanted.add(path);
    }
    for (const path of this.paths) if (!wanted.has(path)) this.#drop(path);
    for (const path of wanted) if (!this.#seen.has(path)) this.#add(path);
  }

  /** Stop watching everything (idempotent). */
  close(): void {
    this.#closed = true;
    for (const folder of this.#folders.values()) folder.watcher.close();
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#folders.clear();
    this.#timers.clear();
    this.#seen.clear();
  }

  #add(path: string): void {
    const dir = dirname(path);
    let folder = this.#folders.get(dir);
    if (!folder) {
      if (this.#folders.size >= MAX_WATCHED_FOLDERS) {
        this.warn(`more than ${MAX_WATCHED_FOLDERS} folders to watch; ${path} is not watched`);
        return;
      }
      let watcher: FSWatcher;
      try {
        // persistent: false — a watcher never keeps the process alive.
        watcher = watch(dir, { persistent: false }, (_type, name) => this.#heard(dir, name));
      } catch (error) {
        this.warn(`${path} cannot be watched: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
        return;
      }
      // The folder went away (or the watch broke): its files are no longer watched, and the user is told.
      watcher.on("error", (error) => {
        this.warn(`${dir} is no longer watched: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
        this.#closeFolder(dir);
      });
      folder = { watcher, names: new Set() };
      this.#folders.set(dir, folder);
    }
    folder.names.add(basename(path));
    this.#seen.set(path, stateOf(path));
  }

  #drop(path: string): void {
    this.#seen.delete(path);
    clearTimeout(this.#timers.get(path));
    this.#timers.delete(path);
    const dir = dirname(path);
    const folder = this.#folders.get(dir);
    folder?.names.delete(basename(path));
    if (folder && folder.names.size === 0) this.#closeFolder(dir);
  }

  #closeFolder(dir: string): void {
    this.#folders.get(dir)?.watcher.close();
    this.#folders.delete(dir);
  }

  /** An event in `dir` (for `name`, or for an unknown file: every watched one there is judged). */
  #heard(dir: string, name: string | Buffer | null): void {
    const folder = this.#folders.get(dir);
    if (!folder) return;
    const names = name === null ? [...folder.names] : folder.names.has(String(name)) ? [String(name)] : [];
    for (const file of names) this.#settle(`${dir === "/" ? "" : dir}/${file}`);
  }

  #settle(path: string): void {
    clearTimeout(this.#timers.get(path));
    const timer = setTimeout(() => {
      this.#timers.delete(path);
      this.#judge(path);
    }, SETTLE_MS);
    timer.unref();
    this.#timers.set(path, timer);
  }

  #judge(path: string): void {
    if (this.#closed || !this.#seen.has(path)) return;
    const before = this.#seen.get(path);
    const now = stateOf(path);
    if (before === now) return;
    this.#seen.set(path, now);
    this.onEvent(path, before === undefined ? "add" : now === undefined ? "unlink" : "change");
  }
}
