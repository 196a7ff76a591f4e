import { z } from "zod";
import type { Logger } from "./config/schema";
import type { PermissionResult } from "./hooks";
import type { ToolOutput } from "./messages";
import type { RunContext } from "./run";

/** How a subprocess's environment is built: the allow-list (the default) or the parent's whole environment. */
export type SubprocessEnvMode = "scrubbed" | "inherit";

/** Everything a tool call can see of its run. */
export interface ToolContext {
  /** The run's working directory (absolute). */
  cwd: string;
  /** Folders the file tools may touch: cwd, additionalDirectories, roots added by plugins. */
  roots: readonly string[];
  abortSignal: AbortSignal;
  sessionId: string;
  toolUseId: string;
  /** `options.env`: the environment overlay for subprocesses. */
  env: Readonly<Record<string, string>>;
  /** `options.subprocessEnv`: the allow-list ("scrubbed") or the whole parent environment ("inherit") ["scrubbed"]. */
  subprocessEnv?: SubprocessEnvMode;
  logger: Logger;
  /**
   * The run this call belongs to (a plugin's tool reaches its per-run state with
   * `context.run(toolContext.run)`). Set on every call the kernel makes; a tool called by hand
   * outside a run (a unit test) may not have one.
   */
  run?: RunContext;
}

/**
 * What a tool does, declared by the tool so other plugins need not list tool names: `read` (files,
 * no change), `search` (find files or text), `edit` (writes files), `execute` (runs commands),
 * `network` (reaches the network), `other`. Advisory: what a kind makes a plugin do must never
 * widen what a call may do (permissions still judge by rule and name).
 */
export type ToolKind = "read" | "search" | "edit" | "execute" | "network" | "other";

/** The permission opinion a tool may give about one call (undefined = no opinion). */
export type ToolPermission = PermissionResult | { behavior: "ask"; message: string } | undefined;

type Awaitable<T> = T | Promise<T>;

/**
 * A tool the model can call. Subclass it (`class Search extends Tool<typeof Input>`) or use
 * `defineTool()`. Defaults: not read-only, not concurrency-safe, no permission opinion, no rule content.
 */
export abstract class Tool<S extends z.ZodType = z.ZodType> {
  /** The name the model calls; unique in a run. */
  abstract readonly name: string;
  /** What the tool does and its real limits, as the model reads it. */
  abstract readonly description: string;
  /** zod schema of the input. */
  abstract readonly inputSchema: S;
  /**
   * The JSON Schema the model sees, when it must not be derived from `inputSchema` (a schema
   * that arrived as JSON Schema, e.g. from an MCP server, is passed through as it came).
   */
  jsonSchema?: Record<string, unknown>;
  /** Cap on the content sent to the model (characters); the stream keeps the full output. */
  maxResultChars?: number;
  /** Longest a call may run (ms; `Infinity`: no limit), over `toolTimeoutMs`; `toolTimeouts` wins over it. */
  timeoutMs?: number;
  /** What the tool does (see `ToolKind`); unset reads as `other`. */
  kind?: ToolKind;

  /** True when this call cannot change anything (plan mode lets it run). */
  isReadOnly(_input: z.output<S>): boolean {
    return false;
  }
  /** True when this call may run in parallel with other concurrency-safe calls. */
  isConcurrencySafe(_input: z.output<S>): boolean {
    return false;
  }
  /** The tool's own permission opinion for this call. */
  checkPermissions(_input: z.output<S>, _ctx: ToolContext): Awaitable<ToolPermission> {
    return undefined;
  }
  /** Every string a content rule (`Tool(content)`) must authorize for this call. */
  permissionRuleContent(_input: z.output<S>): string[] | undefined {
    return undefined;
  }
  /** Semantic validation after the schema: return an error message to refuse the call. */
  validateInput(_input: z.output<S>, _ctx: ToolContext): Awaitable<string | undefined> {
    return undefined;
  }
  /**
   * The tool's own preconditions on the world (the file exists, it was read first), checked when
   * a call would ask the user — after the permission vote, so a denied call learns nothing from
   * them: return why the call cannot run, and nobody is asked. `call` must check them again.
   */
  preconditions?(input: z.output<S>, ctx: ToolContext): Awaitable<string | undefined>;
  /** Run the call. */
  abstract call(input: z.output<S>, ctx: ToolContext): Promise<ToolOutput>;
}

/** Duck-typed check (several copies of ubiquity may coexist, so no instanceof). */
export function isTool(value: unknown): value is Tool {
  const t = value as Tool | null;
  return (
    typeof t === "object" &&
    t !== null &&
    typeof t.name === "string" &&
    typeof t.description === "string" &&
    typeof t.call === "function" &&
    typeof (t.inputSchema as { safeParse?: unknown } | undefined)?.safeParse === "function"
  );
}

/**
 * Bounds that tell the model nothing, yet ride in every request: zod states `.int()` as the bounds
 * of a safe integer (±9007199254740991), `.min(1)` on a string as `minLength: 1`, and
 * `.nonnegative()` / `.positive()` as a 0 bound, `z.strictObject` as `additionalProperties: false`.
 * The input is still validated against all of them.
 */
const dropSilentBounds = ({ jsonSchema: s }: { jsonSchema: Record<string, unknown> }) => {
  for (const key of ["maximum", "minimum"]) if (Math.abs(s[key] as number) === Number.MAX_SAFE_INTEGER) delete s[key];
  if (s.minLength === 1) delete s.minLength;
  if (s.minimum === 0) delete s.minimum;
  if (s.exclusiveMinimum === 0) delete s.exclusiveMinimum;
  // A strict object's "no other keys": the validation refuses them with a message that says so.
  if (s.additionalProperties === false) delete s.additionalProperties;
};

/** The JSON Schema a tool's input presents to the model: `tool.jsonSchema` if set, else derived from `inputSchema`. */
export function toolJsonSchema(tool: Tool): Record<string, unknown> {
  if (tool.jsonSchema) {
    // `$schema` is dropped on both paths: some providers reject it inside a tool definition.
    const { $schema: _drop, ...given } = tool.jsonSchema;
    return given;
  }
  const { $schema: _drop, ...schema } = z.toJSONSchema(tool.inputSchema, {
    io: "input",
    unrepresentable: "any",
    override: dropSilentBounds,
  }) as Record<string, unknown>;
  return schema;
}
