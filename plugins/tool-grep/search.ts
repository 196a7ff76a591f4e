/** The contract between the Grep tool and its two search backends (ripgrep and pure Node). */
import type { FileHandle } from "node:fs/promises";

/** What Grep reports. */
export type GrepMode = "content" | "files_with_matches" | "count";

/** A search, after the tool resolved and checked its input. */
export interface SearchQuery {
  pattern: string;
  /** Absolute path of the folder (or the single file) to search. */
  target: string;
  targetIsFile: boolean;
  mode: GrepMode;
  ignoreCase: boolean;
  /** Matches may span lines, and `.` matches a newline. */
  multiline: boolean;
  /** Context lines before and after each matching line (content mode). */
  before: number;
  after: number;
  /** A ripgrep-style glob filter (`!` excludes). */
  glob?: string;
  /** A key of `FILE_TYPES`. */
  type?: string;
  /**
   * Where the backend reaches the judged target without resolving its name again (a name may
   * lead elsewhere by now: a link swapped in by another process): the searched folder's held
   * path (`HeldFolder.shared`, a child process's cwd too), or the searched file open.
   */
  at?: { folder?: string; file?: FileHandle };
}

/** One printed line of a file: a matching line or a context line. */
export interface SearchLine {
  /** 1-based line number. */
  number: number;
  /** The line, without its "\n" (a "\r" of a CRLF file may remain). */
  text: string;
  match: boolean;
}

/** The hits in one file. */
export interface FileHits {
  /** Path relative to `SearchResult.root`, "/"-separated (as ripgrep prints it). */
  path: string;
  /** Matching lines; in multiline mode, a match spanning lines counts once (as ripgrep counts). */
  count: number;
  /** Content mode only: matching and context lines in line order. */
  lines: SearchLine[];
}

/** What a backend found, unsorted. */
export interface SearchResult {
  /** The folder the file paths are relative to: the searched folder, or the searched file's folder. */
  root: string;
  files: FileHits[];
  /** True when the search stopped early (too much output); the results are a subset. */
  incomplete?: boolean;
  /** The file being searched when it stopped (relative to `root`), when known. */
  stoppedIn?: string;
}

/** A search backend. */
export type SearchBackend = (query: SearchQuery, signal?: AbortSignal) => Promise<SearchResult>;
