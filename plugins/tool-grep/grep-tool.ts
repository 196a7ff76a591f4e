import { stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { ToolContext, ToolOutput } from "../../src/index";
import {
  PathTool,
  assertAsJudged,
  displayPath,
  holdFolder,
  openJudged,
  placeName,
  resolvePermitted,
  ToolFailure,
  guard,
} from "../_kits/file-tools/index";
import { getPermissionsApi } from "../permissions/api";
import { GREP_LIMITS, capLines, resultLines } from "./format";
import { findRipgrep, runs } from "./rg-binary";
import type { SearchQuery, SearchResult } from "./search";

const count = z.number().int().nonnegative().optional();

/** Input of the Grep tool. */
export const GrepInput = z.object({
  pattern: z.string().min(1),
  path: z.string().optional().describe("File or folder (default: the working directory)"),
  glob: z.string().optional().describe('e.g. "*.ts"; "!glob" excludes'),
  type: z.string().optional().describe("e.g. ts, py, rust"),
  output_mode: z.enum(["content", "files_with_matches", "count"]).optional(),
  // ripgrep's own flags (the description says what -A/-B/-C add, and that content lines carry
  // their number, -n's default): the names say the rest.
  "-i": z.boolean().optional(),
  "-n": z.boolean().optional(),
  "-A": count,
  "-B": count,
  "-C": count,
  head_limit: z.number().int().positive().optional(),
  multiline: z.boolean().optional().describe("Matches may span lines; . matches newlines"),
});

type GrepArgs = z.output<typeof GrepInput>;

// Over 1 KB with its parameters (1.2 KB, `npm run bench request-bytes`): ripgrep's twelve options
// are each a parameter the model needs (their names and JSON types are most of the bytes; a flag
// whose name is ripgrep's says what it does without a description), and what it cannot guess —
// that pattern is a ripgrep regex, that a glob overrides .gitignore while a type does not, and
// each output mode's line format and limit — is said here once, not again in the parameters.
const DESCRIPTION = `Searches file contents for a ripgrep regex (escape ( ) [ ] { } . * + ? | for literals).
- Skips .git, binaries, symbolic links and what .gitignore, .ignore and .rgignore exclude (a glob overrides those, type does not); searches hidden files.
- output_mode files_with_matches (default) lists files newest first; content shows path:line:text, context lines (-A/-B/-C) path-line-text, "--" between groups; count shows path:count.
- At most 200 result lines (head_limit lowers it), with a note when cut; matching lines over 500 characters are cut.`;

/** Which search backend Grep uses: ripgrep when a binary runs ("auto"), or one forced. */
export type GrepBackend = "auto" | "rg" | "node";

/** Options of a Grep tool instance. */
export interface GrepToolOptions {
  backend?: GrepBackend;
  /** A ripgrep binary to use instead of the bundled one. */
  rgPath?: string;
}

/** Grep: regex search over files, through ripgrep or the pure-Node fallback. */
export class GrepTool extends PathTool<typeof GrepInput> {
  readonly name = "Grep";
  override readonly kind = "search" as const;
  readonly description = DESCRIPTION;
  readonly inputSchema = GrepInput;

  constructor(private readonly options: GrepToolOptions = {}) {
    super();
  }

  override isReadOnly() {
    return true;
  }
  override isConcurrencySafe() {
    return true;
  }
  protected pathOf(input: z.output<typeof GrepInput>) {
    return input.path ?? ".";
  }

  async call(input: GrepArgs, ctx: ToolContext): Promise<ToolOutput> {
    return guard(async () => {
      const query = await this.#query(input, ctx);
      const { search, name } = await this.#backend();
      const held = await holdTarget(query, ctx);
      let found: SearchResult;
      try {
        found = await search({ ...query, at: held.at }, ctx.abortSignal);
      } finally {
        await held.close();
      }
      const result = withoutRefused(found, ctx);
      const lines = resultLines(result, query, { cwd: ctx.cwd, lineNumbers: input["-n"] ?? true });
      const metadata = { backend: name, files: result.files.length, lines: lines.length };
      if (lines.length === 0) {
        return {
          content: `No matches for ${JSON.stringify(input.pattern)} in ${placeName(ctx.cwd, query.target)}.`,
          metadata,
        };
      }
      return { content: capLines(lines, result, query, input.head_limit), metadata };
    });
  }

  async #query(input: GrepArgs, ctx: ToolContext): Promise<SearchQuery & { real: string }> {
    // The search code (both backends, the type table) loads with the first search (cold start).
    if (input.type !== undefined) {
      const { FILE_TYPES } = await import("./file-types");
      if (!(input.type in FILE_TYPES)) {
        throw new ToolFailure(
          `Unknown file type ${JSON.stringify(input.type)}. Known types: ${Object.keys(FILE_TYPES).join(", ")}. Or filter with glob instead.`,
        );
      }
    }
    const { absolute, real } = await resolvePermitted(ctx, input.path ?? ".");
    // Where the engine judged the path to lead, or refused (a link swapped in since, red team zc).
    assertAsJudged(ctx, absolute, real, absolute, "read");
    const info = await stat(real).catch(() => undefined);
    if (!info)
      throw new ToolFailure(
        `Path does not exist: ${absolute}. Give an existing file or folder (relative paths start at ${ctx.cwd}).`,
      );
    // A FIFO, socket or device given as the path blocked the search (rg reads what it is named)
    // until the tool's time limit: a file searched is a regular file, as for Read (red team i, I8).
    if (!info.isDirectory() && !info.isFile())
      throw new ToolFailure(
        `${absolute} is not a regular file or a folder (a device, socket or pipe); Grep searches regular files only.`,
      );
    const context = input["-C"] ?? 0;
    return {
      pattern: input.pattern,
      real,
      target: absolute,
      targetIsFile: !info.isDirectory(),
      mode: input.output_mode ?? "files_with_matches",
      ignoreCase: input["-i"] ?? false,
      multiline: input.multiline ?? false,
      before: input["-B"] ?? context,
      after: input["-A"] ?? context,
      glob: input.glob,
      type: input.type,
    };
  }

  #rg?: Promise<string | undefined>;

  async #backend(): Promise<{
    name: "node" | "rg";
    search: (query: SearchQuery, signal?: AbortSignal) => Promise<SearchResult>;
  }> {
    const { backend = "auto", rgPath } = this.options;
    const node = async () => ({ name: "node" as const, search: (await import("./node-backend")).searchWithNode });
    if (backend === "node") return node();
    this.#rg ??= rgPath === undefined ? findRipgrep() : runs(rgPath).then((ok) => (ok ? rgPath : undefined));
    const rg = await this.#rg;
    if (rg) {
      const { searchWithRg } = await import("./rg-backend");
      return { name: "rg", search: (query, signal) => searchWithRg(rg, query, signal) };
    }
    if (backend === "rg") throw new ToolFailure('No ripgrep binary runs here; use the Node backend (backend: "node").');
    return node();
  }
}

/**
 * The judged target, held for the search: a folder through its descriptor (`HeldFolder.shared`),
 * a file opened with no link followed (`openJudged`). The backends search these, never the name
 * again: a process beside the agent swapped a.txt for a link to ~/.ssh/id_rsa after the check,
 * and rg, handed the name, printed the key (red team zc, ZC2).
 */
async function holdTarget(query: SearchQuery & { real: string }, ctx: ToolContext) {
  const shown = displayPath(ctx.cwd, query.target);
  if (query.targetIsFile) {
    const opened = await openJudged(query.real, shown);
    if (!opened) throw new ToolFailure(`Path does not exist: ${query.target}.`);
    return { at: { file: opened.handle }, close: () => opened.handle.close() };
  }
  const folder = holdFolder(query.real, { shown, real: query.real, verb: "read" }, false);
  if (!folder) throw new ToolFailure(`Path does not exist: ${query.target}.`);
  return { at: { folder: folder.shared }, close: async () => folder.close() };
}

/**
 * The result without the files a Read deny or ask rule names, before anything is counted, capped
 * or noted: a note that lines were withheld (or a total that counted them) said whether the file
 * holds the pattern, so a search could spell the file out (red team i, I1); and a file an ask
 * rule names was searched without asking, while Read of it asks (I2).
 */
function withoutRefused(result: SearchResult, ctx: ToolContext): SearchResult {
  const run = ctx.run;
  if (!run) return result;
  const permissions = getPermissionsApi(run.kernel);
  const refused = (path: string) => permissions.readWithheld(run, join(result.root, path)) !== undefined;
  const files = result.files.filter((f) => !refused(f.path));
  if (files.length === result.files.length) return result;
  const { stoppedIn, ...rest } = result;
  return stoppedIn === undefined || refused(stoppedIn) ? { ...rest, files } : { ...rest, files, stoppedIn };
}

export { GREP_LIMITS };
