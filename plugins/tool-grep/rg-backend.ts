/**
 * The ripgrep search backend: runs the rg binary with flags that make its file selection
 * reproducible by the Node backend, and parses its NUL-separated output.
 */
import { spawn } from "node:child_process";
import { basename, dirname } from "node:path";
import { ToolFailure } from "../_kits/file-tools/index";
import { hostEnv } from "../_kits/process/index";
import { invalidPatternMessage } from "./node-backend";
import { ATOMIC_TEMP_EXCLUDE } from "../_kits/storage/index";
import type { FileHits, SearchQuery, SearchResult } from "./search";

/** More output than this stops the search (the results are then marked incomplete). */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** The rg arguments for a query (exported for the benchmark, which runs the rg CLI the same way). */
export function rgArguments(query: SearchQuery): string[] {
  const args = [
    "--no-config",
    "--color=never",
    "--hidden",
    "--no-require-git",
    "--no-ignore-global",
    "--no-ignore-exclude",
    "--engine=auto",
    "--null",
    "--with-filename",
    "--glob=!.git",
  ];
  if (query.glob) args.push(`--glob=${query.glob}`);
  // After the user's glob, so it wins: temp files of atomic writes are never searched.
  args.push(`--glob=${ATOMIC_TEMP_EXCLUDE}`);
  if (query.type) args.push(`--type=${query.type}`);
  if (query.ignoreCase) args.push("--ignore-case");
  if (query.multiline) args.push("--multiline", "--multiline-dotall");
  if (query.mode === "files_with_matches") args.push("--files-with-matches");
  else if (query.mode === "count") args.push("--count");
  else args.push("--line-number", "--no-heading", `--before-context=${query.before}`, `--after-context=${query.after}`);
  // A file opened by the tool is searched as rg's stdin: its name is not opened again.
  const file = query.targetIsFile ? (query.at?.file ? "-" : basename(query.target)) : ".";
  args.push("--regexp", query.pattern, "--", file);
  return args;
}

/** The folder rg runs in: the searched folder, or the searched file's folder. */
export function rgCwd(query: SearchQuery): string {
  return query.targetIsFile ? dirname(query.target) : query.target;
}

/** Search with the ripgrep binary at `rgPath`. */
export function searchWithRg(rgPath: string, query: SearchQuery, signal?: AbortSignal): Promise<SearchResult> {
  const cwd = rgCwd(query);
  return new Promise((resolve, reject) => {
    // The search folder is its cwd: `rg` on a relative PATH entry would be the repository's own.
    // It is entered through the folder the tool holds (a name may lead elsewhere by now).
    const child = spawn(rgPath, rgArguments(query), {
      cwd: (!query.targetIsFile && query.at?.folder) || cwd,
      env: hostEnv(process.env, [cwd]),
      stdio: [query.at?.file?.fd ?? "ignore", "pipe", "pipe"],
      signal,
    });
    const out: Buffer[] = [];
    let size = 0;
    let incomplete = false;
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      if (incomplete) return;
      out.push(chunk);
      size += chunk.length;
      if (size > MAX_OUTPUT_BYTES) {
        incomplete = true;
        child.kill("SIGKILL");
      }
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", (error) => {
      reject(signal?.aborted ? new ToolFailure("The search was aborted.") : error);
    });
    child.on("close", (code) => {
      if (signal?.aborted) return reject(new ToolFailure("The search was aborted."));
      const text = Buffer.concat(out).toString("utf8");
      // Status 2 with output means some files could not be read; the rest is still a result.
      if (code === 2 && !incomplete && text === "") {
        return reject(rgFailure(query.pattern, stderr));
      }
      const files = parse(text, query);
      resolve({
        root: cwd,
        files,
        incomplete: incomplete || undefined,
        stoppedIn: incomplete ? files.at(-1)?.path : undefined,
      });
    });
  });
}

function rgFailure(pattern: string, stderr: string): ToolFailure {
  if (/regex parse error|error parsing/.test(stderr)) {
    const reason = /^error: (.*)$/m.exec(stderr)?.[1] ?? stderr.trim();
    return new ToolFailure(invalidPatternMessage(pattern, reason));
  }
  return new ToolFailure(`The search failed: ${stderr.trim() || "ripgrep exited with status 2"}`);
}

/** rg prints "./x" for files found under "."; the hits are relative to the folder rg ran in. */
function relativePath(printed: string, query: SearchQuery): string {
  if (query.targetIsFile && query.at?.file && printed === "<stdin>") return basename(query.target);
  return printed.startsWith("./") ? printed.slice(2) : printed;
}

/** Parse rg's `--null` output (a NUL follows every path) into hits per file. */
function parse(text: string, query: SearchQuery): FileHits[] {
  if (query.mode === "files_with_matches") {
    const paths = text.split("\0");
    paths.pop(); // after the last NUL: "" (or a path cut short by an early stop)
    return paths.map((p) => ({ path: relativePath(p, query), count: 0, lines: [] }));
  }
  const lines = text.split("\n");
  lines.pop(); // after the last newline: "" (or a line cut short by an early stop)
  if (query.mode === "count") {
    return lines.map((line) => {
      const nul = line.indexOf("\0");
      return { path: relativePath(line.slice(0, nul), query), count: Number(line.slice(nul + 1)), lines: [] };
    });
  }
  const byPath = new Map<string, FileHits>();
  for (const line of lines) {
    const nul = line.indexOf("\0");
    if (nul === -1) continue; // "--" between context groups: the formatter draws its own
    const head = /^(\d+)([:-])/.exec(line.slice(nul + 1, nul + 24));
    if (!head) continue;
    const printed = line.slice(0, nul);
    let hits = byPath.get(printed);
    if (!hits) byPath.set(printed, (hits = { path: relativePath(printed, query), count: 0, lines: [] }));
    const match = head[2] === ":";
    if (match) hits.count++;
    hits.lines.push({ number: Number(head[1]), text: line.slice(nul + 1 + head[0].length), match });
  }
  return [...byPath.values()];
}
