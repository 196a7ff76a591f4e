/**
 * What a request's cacheable prefix is made of, hashed: the model, the system prompt, the tool
 * set as a whole, and every tool alone (its schema and its description apart). Tools are hashed
 * individually as well as together so a rewritten description is named even when the tool set
 * is unchanged — the common case, and the hardest to spot by reading code. Cache markers
 * (provider options) are left out: they move every request by design.
 */
import { createHash } from "node:crypto";
import { asSchema, type ToolSet } from "ai";
import type { ModelRequest } from "../../src/index";

/** One tool's hashes. */
export interface ToolHashes {
  schema: string;
  description: string;
}

/** The hashed prefix of one request. */
export interface PrefixSnapshot {
  model: string;
  system: string;
  /** All tools together, in offer order. */
  tools: string;
  /** Tool names in offer order. */
  names: string[];
  each: Map<string, ToolHashes>;
}

const hash = (text: string) => createHash("sha256").update(text).digest("base64url").slice(0, 16);

// The loop hands the same tool entry objects every request: hash each once.
const toolHashes = new WeakMap<object, ToolHashes>();

function hashTool(entry: ToolSet[string]): ToolHashes {
  let hashes = toolHashes.get(entry);
  if (!hashes) {
    let schema: unknown;
    try {
      schema =
        entry.inputSchema === undefined
          ? null
          : asSchema(entry.inputSchema as Parameters<typeof asSchema>[0]).jsonSchema;
    } catch {
      schema = null;
    }
    hashes = {
      schema: hash(JSON.stringify(schema) ?? ""),
      description: hash(typeof entry.description === "string" ? entry.description : ""),
    };
    toolHashes.set(entry, hashes);
  }
  return hashes;
}

function systemText(instructions: ModelRequest["instructions"]): string {
  return typeof instructions === "string" ? instructions : instructions.content;
}

/** Hash the prefix of `request`. */
export function snapshot(request: ModelRequest): PrefixSnapshot {
  const names = Object.keys(request.tools);
  const each = new Map<string, ToolHashes>();
  for (const name of names) each.set(name, hashTool(request.tools[name]!));
  const tools = hash(names.map((n) => `${n}:${each.get(n)!.schema}:${each.get(n)!.description}`).join("\n"));
  return { model: request.modelLabel, system: hash(systemText(request.instructions)), tools, names, each };
}

/** What changed from `before` to `after`, most specific first; empty when nothing did. */
export function changes(before: PrefixSnapshot, after: PrefixSnapshot): string[] {
  const out: string[] = [];
  if (before.model !== after.model) out.push(`model changed (${before.model} -> ${after.model})`);
  if (before.system !== after.system) out.push("system prompt changed");
  if (before.tools === after.tools) return out;
  const added = after.names.filter((n) => !before.each.has(n));
  const removed = before.names.filter((n) => !after.each.has(n));
  const kept = after.names.filter((n) => before.each.has(n));
  if (added.length || removed.length) {
    out.push(`tool set changed (${[...added.map((n) => `+${n}`), ...removed.map((n) => `-${n}`)].join(", ")})`);
  } else if (kept.join("\n") !== before.names.filter((n) => after.each.has(n)).join("\n")) {
    out.push("tool set changed (order)");
  }
  const schema = kept.filter((n) => before.each.get(n)!.schema !== after.each.get(n)!.schema);
  const description = kept.filter((n) => before.each.get(n)!.description !== after.each.get(n)!.description);
  if (schema.length) out.push(`tool schema changed (${schema.join(", ")})`);
  if (description.length) out.push(`tool description changed (${description.join(", ")})`);
  return out;
}
