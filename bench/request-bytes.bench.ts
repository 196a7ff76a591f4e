/**
 * Request bytes (issue 40): what the default preset sends before the conversation starts — each
 * tool definition (name, description, input schema as JSON) and the system prompt — as the model
 * receives them in the first request of a plain `summon()` run. A definition over 1 KB carries a
 * comment in its source saying why; this prints the figures those comments are held to.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { summon } from "../sdk/index";
import { scriptedModel } from "../src/testing/index";

const KB = 1024;

export default async function requestBytesBench(): Promise<void> {
  const cwd = mkdtempSync(join(tmpdir(), "ubiquity-bench-bytes-"));
  try {
    const model = scriptedModel(["done"]);
    for await (const _ of summon("hi", { model, cwd, persistSession: false, persistTodos: false })) void _;
    const request = model.requests[0]!;
    const rows = (request.tools ?? []).map((tool) => {
      const t = tool as { name: string; description?: string; inputSchema?: unknown };
      const description = Buffer.byteLength(t.description ?? "");
      const schema = Buffer.byteLength(JSON.stringify(t.inputSchema ?? {}));
      return { name: t.name, description, schema, total: Buffer.byteLength(JSON.stringify(tool)) };
    });
    const systemText = request.prompt
      .filter((m) => m.role === "system")
      .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
      .join("");
    const system = Buffer.byteLength(systemText);
    console.log(`${"tool".padEnd(18)} ${"description".padStart(11)} ${"schema".padStart(7)} ${"total".padStart(7)}`);
    for (const r of rows)
      console.log(
        `${r.name.padEnd(18)} ${String(r.description).padStart(11)} ${String(r.schema).padStart(7)} ${String(r.total).padStart(7)}${r.total > KB ? "  (over 1 KB: its source says why)" : ""}`,
      );
    // The system prompt's sections (each starts with a "# " heading; the guidance's first line has none).
    console.log(`${"system prompt section".padEnd(30)} ${"bytes".padStart(7)}`);
    for (const section of systemText.split(/\n\n(?=# )/))
      console.log(
        `${section.split("\n")[0]!.slice(0, 30).padEnd(30)} ${String(Buffer.byteLength(section)).padStart(7)}`,
      );
    const tools = rows.reduce((n, r) => n + r.total, 0);
    console.log(
      `tool definitions ${(tools / KB).toFixed(1)} KB (${tools} B), system prompt ${(system / KB).toFixed(1)} KB (${system} B), fixed part of every request ${((tools + system) / KB).toFixed(1)} KB (${tools + system} B)`,
    );
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}
