/**
 * The file-tools kit's host files: a run whose driver (an editor, through `ubiquity acp`) owns
 * the files gets Read's text and Write/Edit's writes through it, while the tools' own checks —
 * the permitted folders, read-before-write — still judge every call.
 */
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { setHostFiles, type HostFiles } from "../../plugins/_kits/file-tools/index";
import type { Plugin } from "../../src/plugin";
import { collect, ofType } from "../helpers/collect";
import { tempDir } from "./helpers";

/** An editor's open buffers, and the plugin that routes a run's file tools through them. */
function editor(buffers: Map<string, string>): { host: HostFiles; plugin: Plugin; writes: string[] } {
  const writes: string[] = [];
  const host: HostFiles = {
    readText: async (path) => buffers.get(path) ?? readFileSync(path, "utf8"),
    writeText: async (path, text) => void (writes.push(path), buffers.set(path, text)),
  };
  return {
    host,
    writes,
    plugin: {
      name: "test:editor",
      apply: (kernel) => kernel.hooks.session.start.tap("test:editor", (run) => setHostFiles(run, host)),
    },
  };
}

describe("host files (the file-tools kit)", () => {
  it("Read sees the host's text, Edit judges read-before-write on it and writes through the host; outside paths stay refused", async () => {
    const dir = tempDir();
    const file = join(dir, "a.txt");
    writeFileSync(file, "disk text\n");
    const buffers = new Map([[file, "buffer text\n"]]);
    const { plugin, writes } = editor(buffers);
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Read", input: { file_path: "a.txt" } }] },
      { toolCalls: [{ toolName: "Edit", input: { file_path: "a.txt", old_string: "buffer", new_string: "edited" } }] },
      { toolCalls: [{ toolName: "Write", input: { file_path: join(dir, "..", "outside.txt"), content: "x" } }] },
      "done",
    ]);
    const messages = await collect(
      summon("go", { model, cwd: dir, permissionMode: "bypassPermissions", persistSession: false, plugins: [plugin] }),
    );
    const [read, edit, outside] = ofType(messages, "tool_result");
    expect(read!.output.content).toContain("buffer text");
    expect(edit!.output.isError).toBe(false);
    expect(buffers.get(file)).toBe("edited text\n");
    expect(readFileSync(file, "utf8")).toBe("disk text\n");
    expect(outside!.output.isError).toBe(true);
    expect(writes).toEqual([file]);
    expect(existsSync(join(dir, "..", "outside.txt"))).toBe(false);
  });

  it("without a read of the host's text, an existing file may not be overwritten", async () => {
    const dir = tempDir();
    const file = join(dir, "b.txt");
    writeFileSync(file, "same\n");
    const { plugin, writes } = editor(new Map([[file, "changed in the editor\n"]]));
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Write", input: { file_path: "b.txt", content: "new\n" } }] },
      "done",
    ]);
    const messages = await collect(
      summon("go", { model, cwd: dir, permissionMode: "bypassPermissions", persistSession: false, plugins: [plugin] }),
    );
    expect(ofType(messages, "tool_result")[0]!.output.content).toContain("has not been read");
    expect(writes).toEqual([]);
  });
});
