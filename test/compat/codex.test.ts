/**
 * `compat: ["codex"]`: a Codex user's own files — AGENTS.override.md in place of AGENTS.md — on
 * real public files (test/fixtures/compat, see SOURCE.md there): GitoxideLabs/GixPython's
 * AGENTS.override.md and openai/codex's AGENTS.md.
 */
import { cpSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { summon, type Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import settingsPlugin from "ubiquity/plugins/settings";
import permissionsPlugin from "ubiquity/plugins/permissions";
import memoryPlugin from "ubiquity/plugins/memory";
import { collect, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome, writeTree } from "../helpers/temp-home";
import { digestsOf, findFilesToPin, TrustPins } from "../../loader/index";

const FIXTURES = fileURLToPath(new URL("../fixtures/compat/", import.meta.url));
const OVERRIDE_TEXT = "Read [agents.md](agents.md) and follow its repository-wide instructions";
const AGENTS_TEXT = "TUI bottom pane (state machines)";
const temps = tempDirs();
const temp = (prefix: string) => realpathSync(temps(prefix));
// The user's own ~/.codex must not leak into these runs: HOME is an empty folder for each test.
const home = tempHome();

/** A project holding openai/codex's AGENTS.md and, when asked, GixPython's AGENTS.override.md beside it. */
function project(withOverride: boolean, files: Record<string, string> = {}): string {
  const dir = temp("ubq-codex-");
  cpSync(join(FIXTURES, "codex", "AGENTS.md"), join(dir, "AGENTS.md"));
  if (withOverride) cpSync(join(FIXTURES, "codex-override", "AGENTS.override.md"), join(dir, "AGENTS.override.md"));
  writeTree(dir, files);
  return dir;
}

async function systemOf(cwd: string, options: Options = {}) {
  const warnings: string[] = [];
  const model = scriptedModel(["done"]);
  const messages = await collect(
    summon("go", {
      presets: [],
      plugins: [settingsPlugin(), permissionsPlugin(), memoryPlugin()],
      model,
      cwd,
      compat: ["codex"],
      logger: { debug() {}, info() {}, error() {}, warn: (...a: unknown[]) => warnings.push(a.join(" ")) },
      ...options,
    }),
  );
  expect(resultOf(messages).isError).toBe(false);
  const system = (model.requests[0]?.prompt ?? [])
    .filter((m) => m.role === "system")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
  return { system, warnings };
}

describe("AGENTS.override.md", () => {
  it("is read in place of AGENTS.md in the same folder", async () => {
    const { system } = await systemOf(project(true));
    expect(system).toContain(OVERRIDE_TEXT);
    expect(system).not.toContain(AGENTS_TEXT);
  });

  it("without it, AGENTS.md is read as before", async () => {
    const { system } = await systemOf(project(false));
    expect(system).toContain(AGENTS_TEXT);
    expect(system).not.toContain(OVERRIDE_TEXT);
  });

  it("replaces only its own folder's AGENTS.md: the root's still applies above a subfolder's override", async () => {
    // A repository: Codex reads the AGENTS.md files from its root down to the cwd.
    const dir = project(false, {
      ".git/HEAD": "ref: refs/heads/main\n",
      "crate/AGENTS.md": "Subfolder rule SUB-AGENTS-MARKER.\n",
    });
    cpSync(join(FIXTURES, "codex-override", "AGENTS.override.md"), join(dir, "crate", "AGENTS.override.md"));
    const { system } = await systemOf(join(dir, "crate"));
    expect(system).toContain(AGENTS_TEXT);
    expect(system).toContain(OVERRIDE_TEXT);
    expect(system).not.toContain("SUB-AGENTS-MARKER");
    expect(system.indexOf(AGENTS_TEXT)).toBeLessThan(system.indexOf(OVERRIDE_TEXT)); // the nearer file comes later
  });

  it("an empty one in a project folder hides AGENTS.md, as in Codex", async () => {
    const { system } = await systemOf(project(false, { "AGENTS.override.md": "" }));
    expect(system).not.toContain(AGENTS_TEXT);
  });

  it("~/.codex/AGENTS.override.md replaces ~/.codex/AGENTS.md unless it is blank", async () => {
    writeTree(home(), { ".codex/AGENTS.md": "User rule USER-AGENTS-MARKER.\n", ".codex/AGENTS.override.md": " \n\n" });
    const blank = await systemOf(temp("ubq-codex-empty-"));
    expect(blank.system).toContain("USER-AGENTS-MARKER");
    writeTree(home(), { ".codex/AGENTS.override.md": "User override USER-OVERRIDE-MARKER.\n" });
    const set = await systemOf(temp("ubq-codex-empty-"));
    expect(set.system).toContain("USER-OVERRIDE-MARKER");
    expect(set.system).not.toContain("USER-AGENTS-MARKER");
  });

  it("is not read without compat: codex, nor in an untrusted folder", async () => {
    const dir = project(true);
    expect((await systemOf(dir, { compat: [] })).system).not.toContain(OVERRIDE_TEXT);
    const untrusted = await systemOf(dir, { trust: false });
    expect(untrusted.system).not.toContain(OVERRIDE_TEXT);
    expect(untrusted.system).not.toContain(AGENTS_TEXT);
  });

  it("under approved digests: a changed override is not read, and the AGENTS.md it replaces is not read instead", async () => {
    const dir = project(true);
    const plugins = [settingsPlugin(), memoryPlugin()];
    const pinned = findFilesToPin(dir, home(), plugins).map((f) => f.path);
    expect(pinned).toContain(join(dir, "AGENTS.override.md"));
    const approved = new TrustPins(digestsOf(findFilesToPin(dir, home(), plugins)), home());
    expect((await systemOf(dir, { trust: approved })).system).toContain(OVERRIDE_TEXT);
    writeFileSync(join(dir, "AGENTS.override.md"), "Changed after approval: CHANGED-OVERRIDE-MARKER.\n");
    const after = await systemOf(dir, { trust: approved });
    expect(after.system).not.toContain("CHANGED-OVERRIDE-MARKER");
    expect(after.system).not.toContain(AGENTS_TEXT);
  });
});
