import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import type { ToolContext, ToolOutput } from "../../src/index";
import { PathTool, ToolFailure, assertAsJudged, displayPath, guard, resolvePermitted } from "../_kits/file-tools/index";
import type { LspConnection } from "./client";
import { serverFor, type NamedServer } from "./config";

/** The operations, as Claude Code's LSP tool names them. */
export const LSP_OPERATIONS = [
  "goToDefinition",
  "findReferences",
  "hover",
  "documentSymbol",
  "workspaceSymbol",
  "goToImplementation",
  "prepareCallHierarchy",
  "incomingCalls",
  "outgoingCalls",
] as const;
export type LspOperation = (typeof LSP_OPERATIONS)[number];

/** Input of the LSP tool (Claude Code's: positions 1-based, as editors show them). */
export const LspInput = z.object({
  operation: z.enum(LSP_OPERATIONS),
  filePath: z.string().min(1).describe("Absolute, or relative to the working directory"),
  line: z.number().int().positive().optional().describe("1-based"),
  character: z.number().int().positive().optional().describe("1-based"),
  query: z.string().optional().describe("workspaceSymbol: the name or part of it"),
});

/** Most result lines one call returns (the rest are counted). */
const MAX_RESULT_LINES = 300;

// The parameters' own descriptions say the rest; which server serves a file is the config's, named in the refusal.
const DESCRIPTION = `Code intelligence from the language servers configured for the file's type (1-based line and character, as editors show them).
- goToDefinition, goToImplementation, findReferences, hover, prepareCallHierarchy, incomingCalls, outgoingCalls: at filePath, line, character.
- documentSymbol: the symbols of filePath. workspaceSymbol: symbols matching query, across the project filePath belongs to.
Locations are path:line:character.`;

/** Where the tool finds the servers and its connections. */
export interface LspAccess {
  servers(ctx: ToolContext): readonly NamedServer[];
  connect(ctx: ToolContext, server: NamedServer, path: string, languageId: string): Promise<LspConnection>;
}

/** LSP: the language server operations Claude Code's LSP tool offers, read-only. */
export class LspTool extends PathTool<typeof LspInput> {
  readonly name = "LSP";
  override readonly kind = "read" as const;
  readonly description = DESCRIPTION;
  readonly inputSchema = LspInput;

  constructor(private readonly access: LspAccess) {
    super();
  }

  override isReadOnly() {
    return true;
  }
  override isConcurrencySafe() {
    return true;
  }
  protected pathOf(input: z.output<typeof LspInput>) {
    return input.filePath;
  }

  override async validateInput(input: z.output<typeof LspInput>, ctx: ToolContext): Promise<string | undefined> {
    const positional = input.operation !== "documentSymbol" && input.operation !== "workspaceSymbol";
    if (positional && (input.line === undefined || input.character === undefined))
      return `${input.operation} needs line and character (1-based) besides filePath.`;
    if (input.operation === "workspaceSymbol" && !input.query?.trim())
      return "workspaceSymbol needs a query (a symbol's name or part of it): most servers return nothing for an empty one.";
    const outside = await super.validateInput(input, ctx);
    if (outside) return outside;
    return serverFor(this.access.servers(ctx), input.filePath)
      ? undefined
      : noServer(this.access.servers(ctx), input.filePath);
  }

  async call(input: z.output<typeof LspInput>, ctx: ToolContext): Promise<ToolOutput> {
    return guard(async () => {
      const { absolute, real } = await resolvePermitted(ctx, input.filePath);
      // Where the engine judged the path to lead, or refused (a link swapped in since, red team zc).
      assertAsJudged(ctx, absolute, real, input.filePath, "read");
      const match = serverFor(this.access.servers(ctx), real);
      if (!match) throw new ToolFailure(noServer(this.access.servers(ctx), input.filePath));
      const connection = await this.access.connect(ctx, match.server, real, match.languageId);
      const lines = await operate(connection, input, real, ctx);
      // Which files each line names, for the permissions plugin's Read-deny filter (null: a place it cannot judge).
      return {
        content: lines.map((l) => l.text).join("\n"),
        metadata: { [NAMED_FILES]: lines.map((l) => l.files) },
      };
    });
  }
}

function noServer(servers: readonly NamedServer[], path: string): string {
  if (servers.length === 0) return "No language server is configured (lspServers, or a plugin's .lsp.json).";
  const exts = [...new Set(servers.flatMap((s) => Object.keys(s.config.extensionToLanguage)))].join(", ");
  return `No language server serves ${path}; the configured ones serve ${exts}.`;
}

interface Position {
  line: number;
  character: number;
}
interface Range {
  start: Position;
  end: Position;
}
interface Location {
  uri: string;
  range: Range;
}
interface LocationLink {
  targetUri: string;
  targetRange: Range;
  targetSelectionRange?: Range;
}
interface SymbolInfo {
  name: string;
  kind: number;
  containerName?: string;
  location?: Location | { uri: string };
  range?: Range;
  selectionRange?: Range;
  children?: SymbolInfo[];
  detail?: string;
}
interface CallItem {
  name: string;
  kind: number;
  uri: string;
  range: Range;
  selectionRange: Range;
  detail?: string;
}

/**
 * The metadata key of an answer's files: for each line of the content, the absolute paths of the
 * files it names, or null when it names a place that is no local file (a non-file URI) or text
 * of unknown origin (a hover). The Read-deny filter judges each line by it.
 */
export const NAMED_FILES = "namedFiles";

/** One line of an answer and the files it names. */
interface Line {
  text: string;
  files: string[] | null;
}

/** A line naming nothing (headings, notes). */
const plain = (text: string): Line => ({ text: oneLine(text), files: [] });

/** What one call needs: the connection, where it points, and how paths are shown. */
interface Call {
  connection: LspConnection;
  input: z.output<typeof LspInput>;
  textDocument: { uri: string };
  at: { textDocument: { uri: string }; position: Position };
  signal: AbortSignal;
  /** `path:line:character` of a location and the file it names (null: not a local file). */
  where(uri: string, p: Position): Line;
  /** `file:line:character` of the call, as the model wrote it. */
  here: string;
}

async function operate(
  connection: LspConnection,
  input: z.output<typeof LspInput>,
  path: string,
  ctx: ToolContext,
): Promise<Line[]> {
  const textDocument = { uri: pathToFileURL(path).href };
  const call: Call = {
    connection,
    input,
    textDocument,
    at: { textDocument, position: { line: (input.line ?? 1) - 1, character: (input.character ?? 1) - 1 } },
    signal: ctx.abortSignal,
    where: (uri, p) => {
      const shown = shownPath(uri, ctx.cwd);
      return { text: `${shown.text}:${p.line + 1}:${p.character + 1}`, files: shown.files };
    },
    here: `${input.filePath}:${input.line}:${input.character}`,
  };
  switch (input.operation) {
    case "goToDefinition":
    case "goToImplementation":
      return definitions(call);
    case "findReferences":
      return references(call);
    case "hover": {
      const hover = (await connection.request("textDocument/hover", call.at, call.signal)) as {
        contents?: unknown;
      } | null;
      const text = hoverText(hover?.contents).trim();
      // A hover is text the server made from any file: no line of it can be vouched for.
      if (!text) return [plain(`No hover information at ${call.here}.`)];
      return text.split("\n").map((line) => ({ text: oneLine(line), files: null }));
    }
    case "documentSymbol":
      return documentSymbols(call, path, ctx.cwd);
    case "workspaceSymbol":
      return workspaceSymbols(call, ctx.cwd);
    default:
      return callHierarchy(call);
  }
}

async function definitions({ connection, input, at, signal, where, here }: Call): Promise<Line[]> {
  const definition = input.operation === "goToDefinition";
  const method = definition ? "textDocument/definition" : "textDocument/implementation";
  const found = locations(await connection.request(method, at, signal));
  const what = definition ? "definition" : "implementation";
  if (found.length === 0) return [plain(`No ${what} found at ${here}.`)];
  return listed(
    found.map((l) => where(l.uri, l.range.start)),
    `${found.length} ${what}${found.length === 1 ? "" : "s"}:`,
  );
}

async function references({ connection, at, signal, where, here }: Call): Promise<Line[]> {
  const params = { ...at, context: { includeDeclaration: true } };
  const found = locations(await connection.request("textDocument/references", params, signal));
  if (found.length === 0) return [plain(`No references found at ${here}.`)];
  const files = new Set(found.map((l) => l.uri)).size;
  return listed(
    found.map((l) => where(l.uri, l.range.start)),
    `${found.length} reference${found.length === 1 ? "" : "s"} in ${files} file${files === 1 ? "" : "s"}:`,
  );
}

async function documentSymbols(
  { connection, input, textDocument, signal }: Call,
  path: string,
  cwd: string,
): Promise<Line[]> {
  const symbols = listOf(await connection.request("textDocument/documentSymbol", { textDocument }, signal));
  if (symbols.length === 0) return [plain(`No symbols found in ${input.filePath}.`)];
  const lines: Line[] = [];
  const walk = (list: SymbolInfo[], depth: number) => {
    for (const s of list) {
      const start = s.selectionRange?.start ?? s.range?.start ?? (s.location as Location | undefined)?.range?.start;
      // A symbol the server places in another file (SymbolInformation's location) names that file.
      const uri = (s.location as Partial<Location> | undefined)?.uri;
      const files = uri === undefined ? [path] : shownPath(uri, cwd).files;
      lines.push({
        text: `${"  ".repeat(depth)}${oneLine(String(s.name))} (${kindName(s.kind)})${start ? ` line ${start.line + 1}` : ""}`,
        files,
      });
      if (Array.isArray(s.children)) walk(s.children, depth + 1);
    }
  };
  walk(symbols, 0);
  return listed(lines, `Symbols of ${input.filePath}:`);
}

async function workspaceSymbols({ connection, input, signal, where }: Call, cwd: string): Promise<Line[]> {
  const symbols = listOf(await connection.request("workspace/symbol", { query: input.query ?? "" }, signal));
  if (symbols.length === 0) return [plain(`No symbols match ${JSON.stringify(input.query)}.`)];
  // A symbol without a location comes from no file anyone can name: it cannot be judged.
  const place = (loc: Partial<Location> | undefined): Line =>
    typeof loc?.uri === "string"
      ? loc.range
        ? where(loc.uri, loc.range.start)
        : shownPath(loc.uri, cwd)
      : { text: "(no location)", files: null };
  return listed(
    symbols.map((s) => {
      const at = place(s.location as Partial<Location> | undefined);
      const container = s.containerName ? ` in ${oneLine(String(s.containerName))}` : "";
      return { text: `${at.text} ${oneLine(String(s.name))} (${kindName(s.kind)})${container}`, files: at.files };
    }),
    `${symbols.length} symbol${symbols.length === 1 ? "" : "s"} match ${JSON.stringify(input.query)}:`,
  );
}

async function callHierarchy({ connection, input, at, signal, where, here }: Call): Promise<Line[]> {
  const items = listOf(await connection.request("textDocument/prepareCallHierarchy", at, signal)) as CallItem[];
  if (items.length === 0) return [plain(`No function or method at ${here}.`)];
  const item = (c: CallItem): Line => {
    const loc = where(c.uri, c.selectionRange.start);
    return { text: `${loc.text} ${oneLine(String(c.name))} (${kindName(c.kind)})`, files: loc.files };
  };
  if (input.operation === "prepareCallHierarchy") return listed(items.map(item), "Call hierarchy items:");
  const incoming = input.operation === "incomingCalls";
  const method = incoming ? "callHierarchy/incomingCalls" : "callHierarchy/outgoingCalls";
  type Call = { from?: CallItem; to?: CallItem; fromRanges?: Range[] };
  const calls = (
    await Promise.all(
      items.map(async (it) => ((await connection.request(method, { item: it }, signal)) ?? []) as Call[]),
    )
  ).flat();
  if (calls.length === 0) return [plain(incoming ? "No calls to it were found." : "It calls nothing that was found.")];
  return listed(
    calls.map((c) => {
      const sites = c.fromRanges?.length ?? 0;
      const line = item((incoming ? c.from : c.to)!);
      return { ...line, text: `${line.text}${sites > 1 ? ` (${sites} call sites)` : ""}` };
    }),
    incoming ? `Called from ${calls.length} place${calls.length === 1 ? "" : "s"}:` : `Calls ${calls.length}:`,
  );
}

/** A location answer (one, a list, links, or none) as locations. */
function locations(answer: unknown): Location[] {
  const list = answer === null || answer === undefined ? [] : Array.isArray(answer) ? answer : [answer];
  return list.flatMap((l: Location | LocationLink) =>
    "targetUri" in l
      ? [{ uri: l.targetUri, range: l.targetSelectionRange ?? l.targetRange }]
      : l && typeof l.uri === "string" && l.range
        ? [l]
        : [],
  );
}

/** A hover's contents (MarkupContent, a MarkedString or a list of them) as text. */
function hoverText(contents: unknown): string {
  if (contents === null || contents === undefined) return "";
  if (typeof contents === "string") return contents;
  if (Array.isArray(contents)) return contents.map(hoverText).filter(Boolean).join("\n\n");
  const c = contents as { value?: unknown; language?: unknown };
  if (typeof c.value !== "string") return "";
  return typeof c.language === "string" ? `\`\`\`${c.language}\n${c.value}\n\`\`\`` : c.value;
}

/**
 * The path a URI names, as the model reads paths (relative inside the working directory), and the
 * file: none that can be judged (null) when the URI is no local file path (another scheme, a host,
 * an encoded `/`), which is then shown as written.
 */
function shownPath(uri: string, cwd: string): Line {
  if (typeof uri !== "string") return { text: "(no location)", files: null };
  let path: string | undefined;
  try {
    path = uri.startsWith("file:") ? fileURLToPath(uri) : undefined;
  } catch {
    path = undefined;
  }
  if (path === undefined) return { text: oneLine(uri), files: null };
  return { text: oneLine(displayPath(cwd, path)), files: [path] };
}

/**
 * Text from a server on one line: a line break (or any control character) in a name or a path
 * written as an escape, so each line of the answer is one result, named by its own files.
 */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) =>
    c === "\n" ? "\\n" : c === "\r" ? "\\r" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A list answer: an array, else nothing (a server's object or string is no list). */
function listOf(answer: unknown): SymbolInfo[] {
  return Array.isArray(answer) ? (answer.filter((s) => s && typeof s === "object") as SymbolInfo[]) : [];
}

function listed(lines: Line[], heading: string): Line[] {
  const shown = lines.slice(0, MAX_RESULT_LINES);
  const more = lines.length - shown.length;
  return [plain(heading), ...shown, ...(more > 0 ? [plain(`[${more} more not shown]`)] : [])];
}

const SYMBOL_KINDS = [
  "",
  "File",
  "Module",
  "Namespace",
  "Package",
  "Class",
  "Method",
  "Property",
  "Field",
  "Constructor",
  "Enum",
  "Interface",
  "Function",
  "Variable",
  "Constant",
  "String",
  "Number",
  "Boolean",
  "Array",
  "Object",
  "Key",
  "Null",
  "EnumMember",
  "Struct",
  "Event",
  "Operator",
  "TypeParameter",
];

function kindName(kind: number): string {
  return SYMBOL_KINDS[kind] || "Symbol";
}
