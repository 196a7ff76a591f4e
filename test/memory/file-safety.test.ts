/**
 * Memory files are resolved through symlinks before any limit applies, only regular text files
 * are read, and a large file is cut at the cap without being read whole (issue 14, point 5).
 */
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { loadMemory, MAX_MEMORY_CHARS } from "../../plugins/memory/index";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome, writeTree } from "../helpers/temp-home";

const temp = tempDirs();
const home = tempHome();

function repo(files: Record<string, string> = {}) {
  const cwd = realpathSync(temp("ubq-mem-"));
  writeTree(cwd, files);
  return cwd;
}

async function load(options: { memorySources?: string[]; memory?: string[] }, cwd: string) {
  const problems: string[] = [];
  const files = await loadMemory(options, { cwd, home: home() }, (m) => problems.push(m));
  // The project walk starts at the filesystem root; keep only what this test made.
  const ours = files.filter((f) => f.path.startsWith(cwd) || f.path.startsWith(home()) || f.source === "memory");
  return { files: ours, problems, text: ours.map((f) => f.content).join("\n") };
}

/** A FIFO made by the real mkfifo binary. */
function fifo(path: string) {
  execFileSync("mkfifo", [path]);
}

/** A listening unix socket at `path`; closed by the caller. */
function socket(path: string): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(path, () => resolve(server));
  });
}

/** Bytes read by this process so far (Linux), to show a file was not read whole. */
function bytesRead(): number | undefined {
  if (!existsSync("/proc/self/io")) return undefined;
  const line = readFileSync("/proc/self/io", "utf8")
    .split("\n")
    .find((l) => l.startsWith("rchar:"));
  return line ? Number(line.split(/\s+/)[1]) : undefined;
}

describe("memory files through symlinks", () => {
  it("a top-level UBIQUITY.md linking to ~/.ssh/id_rsa is refused with a warning naming it", async () => {
    writeTree(home(), { ".ssh/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\nSECRET KEY\n" });
    const cwd = repo();
    symlinkSync(join(home(), ".ssh/id_rsa"), join(cwd, "UBIQUITY.md"));
    const { files, problems, text } = await load({ memorySources: ["project"] }, cwd);
    expect(files).toEqual([]);
    expect(text).not.toContain("SECRET");
    expect(problems).toEqual([
      `refused the memory file ${join(cwd, "UBIQUITY.md")}: it resolves to ${join(home(), ".ssh/id_rsa")}, and a project memory file must stay inside the folder it was found in (${cwd})`,
    ]);
  });

  it("UBIQUITY.local.md, .ubiquity/UBIQUITY.md and a linked .ubiquity folder pointing at /etc/passwd or outside are refused too", async () => {
    const cwd = repo();
    const outside = repo({ "rules.md": "OUTSIDE RULES" });
    mkdirSync(join(cwd, ".ubiquity"));
    symlinkSync("/etc/passwd", join(cwd, "UBIQUITY.local.md"));
    symlinkSync(join(outside, "rules.md"), join(cwd, ".ubiquity", "UBIQUITY.md"));
    const { files, problems, text } = await load({ memorySources: ["project", "local"] }, cwd);
    expect(files).toEqual([]);
    expect(text).not.toContain("root:");
    expect(text).not.toContain("OUTSIDE");
    expect(problems).toHaveLength(2);
    expect(problems.join("\n")).toContain(
      `refused the memory file ${join(cwd, ".ubiquity", "UBIQUITY.md")}: it resolves to ${join(outside, "rules.md")}`,
    );
    expect(problems.join("\n")).toContain(
      `refused the memory file ${join(cwd, "UBIQUITY.local.md")}: it resolves to /etc/passwd`,
    );
  });

  it("a user memory file must resolve inside the home folder", async () => {
    const outside = repo({ "shared.md": "SHARED" });
    mkdirSync(join(home(), ".ubiquity"));
    symlinkSync(join(outside, "shared.md"), join(home(), ".ubiquity", "UBIQUITY.md"));
    const { files, problems } = await load({ memorySources: ["user"] }, repo());
    expect(files).toEqual([]);
    expect(problems).toEqual([
      expect.stringMatching(
        /refused the memory file .*UBIQUITY\.md: it resolves to .*shared\.md, and a user memory file must stay inside the home folder/,
      ),
    ]);
  });

  it("a link inside the folder to a text file is read; a link inside the folder to a file without a text extension is not", async () => {
    const cwd = repo({ "docs/AGENTS.md": "shared agent rules", "app/UBIQUITY.md": "x", "secrets/token": "TOKEN" });
    symlinkSync("docs/AGENTS.md", join(cwd, "UBIQUITY.md"));
    symlinkSync("secrets/token", join(cwd, "UBIQUITY.local.md"));
    const { files, problems, text } = await load({ memorySources: ["project", "local"] }, cwd);
    expect(files.map((f) => f.path)).toEqual([join(cwd, "UBIQUITY.md")]);
    expect(text).toBe("shared agent rules");
    expect(problems).toEqual([
      `refused the memory file ${join(cwd, "UBIQUITY.local.md")}: it links to ${join(cwd, "secrets/token")}, which has no text extension`,
    ]);
  });

  it("an @include through a symlink is judged by its real path: out of scope or without a text extension, it is not read", async () => {
    writeTree(home(), { ".ssh/id_ed25519": "PRIVATE" });
    const cwd = repo({
      "UBIQUITY.md": "see @notes.md and @keys.md and @ok.md",
      "real/ok.md": "fine",
      "real/.env": "API=1",
    });
    symlinkSync(join(home(), ".ssh/id_ed25519"), join(cwd, "notes.md"));
    symlinkSync("real/.env", join(cwd, "keys.md"));
    symlinkSync("real/ok.md", join(cwd, "ok.md"));
    const { files, problems, text } = await load({ memorySources: ["project"] }, cwd);
    expect(files.map((f) => f.content)).toEqual(["see @notes.md and @keys.md and @ok.md", "fine"]);
    expect(text).not.toContain("PRIVATE");
    expect(text).not.toContain("API=1");
    expect(problems).toEqual([
      `did not include @notes.md from ${join(cwd, "UBIQUITY.md")}: it resolves to ${join(home(), ".ssh/id_ed25519")}, and a project file may include only from under the working directory`,
      `did not include @keys.md from ${join(cwd, "UBIQUITY.md")}: it links to ${join(cwd, "real/.env")}, which has no text extension`,
    ]);
  });
});

describe("only regular text files are read", () => {
  it("a FIFO (as UBIQUITY.md, as an include, through a link) is refused at once, without blocking", async () => {
    const cwd = repo({ "app/UBIQUITY.md": "app: @pipe.md and @linked.md" });
    fifo(join(cwd, "UBIQUITY.md"));
    fifo(join(cwd, "app", "pipe.md"));
    fifo(join(cwd, "app", "real-pipe.md"));
    symlinkSync("real-pipe.md", join(cwd, "app", "linked.md"));
    // An open that waited for a writer would never return (no writer comes): returning is the proof.
    const { files, problems } = await load({ memorySources: ["project"] }, join(cwd, "app"));
    expect(files.map((f) => f.path)).toEqual([join(cwd, "app", "UBIQUITY.md")]);
    expect(problems).toEqual([
      `skipped the memory file ${join(cwd, "UBIQUITY.md")}: it is a named pipe (FIFO); only regular text files are read`,
      `skipped the memory file ${join(cwd, "app", "pipe.md")}: it is a named pipe (FIFO); only regular text files are read`,
      `skipped the memory file ${join(cwd, "app", "linked.md")} (${join(cwd, "app", "real-pipe.md")}): it is a named pipe (FIFO); only regular text files are read`,
    ]);
  });

  it("a device and a socket are refused; a folder named like a memory file is refused", async () => {
    const cwd = repo();
    mkdirSync(join(cwd, "UBIQUITY.md"));
    const server = await socket(join(cwd, "sock.md"));
    try {
      const { files, problems } = await load({ memorySources: ["project"], memory: ["/dev/zero", "./sock.md"] }, cwd);
      expect(files).toEqual([]);
      expect(problems).toEqual([
        `skipped the memory file ${join(cwd, "UBIQUITY.md")}: it is a folder; only regular text files are read`,
        "skipped the memory file /dev/zero: it is a device; only regular text files are read",
        `skipped the memory file ${join(cwd, "sock.md")}: it is a socket; only regular text files are read`,
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("a binary file is refused, as a memory file and as an include", async () => {
    const cwd = repo({ "UBIQUITY.md": "rules @data.json" });
    writeFileSync(join(cwd, "data.json"), Buffer.from([0x7b, 0x00, 0x01, 0x02, 0x7d]));
    writeFileSync(join(cwd, "UBIQUITY.local.md"), Buffer.from("text\u0000more", "utf8"));
    const { files, problems } = await load({ memorySources: ["project", "local"] }, cwd);
    expect(files.map((f) => f.content)).toEqual(["rules @data.json"]);
    expect(problems).toEqual([
      `skipped the memory file ${join(cwd, "data.json")}: it is not a text file (it contains NUL bytes)`,
      `skipped the memory file ${join(cwd, "UBIQUITY.local.md")}: it is not a text file (it contains NUL bytes)`,
    ]);
  });

  it("a memory file that is not valid UTF-8 is skipped with a warning, never put in the prompt as replacement characters", async () => {
    const cwd = repo({ "UBIQUITY.md": "rules @notes.md" });
    writeFileSync(
      join(cwd, "notes.md"),
      Buffer.concat([Buffer.from("caf"), Buffer.from([0xe9]), Buffer.from(" au lait\n")]),
    ); // Latin-1 é
    writeFileSync(join(cwd, "UBIQUITY.local.md"), Buffer.from([0xff, 0xfe, 0x41, 0x42]));
    const { files, problems, text } = await load({ memorySources: ["project", "local"] }, cwd);
    expect(files.map((f) => f.content)).toEqual(["rules @notes.md"]);
    expect(text).not.toContain("\uFFFD");
    expect(problems).toEqual([
      `skipped the memory file ${join(cwd, "notes.md")}: it is not valid UTF-8 text; save it as UTF-8 to use it`,
      `skipped the memory file ${join(cwd, "UBIQUITY.local.md")}: it is not valid UTF-8 text; save it as UTF-8 to use it`,
    ]);
    // A multi-byte character split by the read cap is no reason to refuse the file.
    writeFileSync(join(cwd, "UBIQUITY.md"), `${"a".repeat(4 * MAX_MEMORY_CHARS + 3)}é${"b".repeat(10)}`);
    const long = await load({ memorySources: ["project"] }, cwd);
    expect(long.problems).toEqual([]);
    expect(long.files[0]!.cut).toBe(true);
    expect(long.text).not.toContain("\uFFFD");
  });

  it("a 50 MB sparse file is cut at the cap without being read whole", async () => {
    const cwd = repo();
    const path = join(cwd, "UBIQUITY.md");
    const fd = openSync(path, "w");
    writeSync(fd, "rule. ".repeat(40_000)); // 240,000 bytes of text, then a 50 MB hole
    ftruncateSync(fd, 50 * 1024 * 1024);
    closeSync(fd);
    const before = bytesRead();
    const { files, problems } = await load({ memorySources: ["project"] }, cwd);
    const after = bytesRead();
    expect(problems).toEqual([]);
    expect(files).toHaveLength(1);
    expect(files[0]!.cut).toBe(true);
    expect(files[0]!.content.startsWith("rule. ".repeat(MAX_MEMORY_CHARS / 6).slice(0, MAX_MEMORY_CHARS))).toBe(true);
    expect(files[0]!.content).toContain(
      `${path} was cut here: it is 52,428,800 bytes long and only the first 40,000 characters are included`,
    );
    expect(files[0]!.content.length).toBeLessThan(MAX_MEMORY_CHARS + 300);
    // At most the cap (160,004 bytes) came off the disk, not 50 MB.
    if (before !== undefined && after !== undefined) expect(after - before).toBeLessThan(1_000_000);
  });

  it("a file whose start fits the cap but whose rest is past it is still marked as cut", async () => {
    const cwd = repo();
    // 40,000 characters, then 200,000 spaces (trimmed away), then text the cap never reaches.
    writeFileSync(join(cwd, "UBIQUITY.md"), `${"a".repeat(MAX_MEMORY_CHARS)}${" ".repeat(200_000)}LATE`);
    const { files } = await load({ memorySources: ["project"] }, cwd);
    expect(files[0]!.cut).toBe(true);
    expect(files[0]!.content).not.toContain("LATE");
    expect(files[0]!.content).toContain("was cut here: it is 240,004 bytes long");
  });
});
