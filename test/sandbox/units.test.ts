/** The sandbox's pure parts: option defaults, excludedCommands, host patterns, the proxy's loopback rule, the layout, Seatbelt text, violation lines. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ResolvedOptions } from "ubiquity/plugin";
import { isExcluded, sandboxSettings } from "../../plugins/sandbox/config";
import { FilteringProxy, hostMatches } from "../../plugins/sandbox/proxy";
import { layoutRoot } from "../../plugins/sandbox/protect";
import { programRootsOf } from "../../plugins/sandbox/bwrap";
import { seatbeltProfile } from "../../plugins/sandbox/seatbelt";
import { violationsInOutput } from "../../plugins/sandbox/violations";
import { sandboxNote } from "../../plugins/sandbox/note";

const opts = (sandbox: unknown, extra: Record<string, unknown> = {}) =>
  ({ cwd: "/w", sandbox, ...extra }) as unknown as ResolvedOptions;

describe("the system prompt's sandbox section", () => {
  it("calls the working directory so (the environment section names it) and names the other writable folders", () => {
    const settings = sandboxSettings(opts(true, { additionalDirectories: ["../lib"] }), "/h");
    expect(sandboxNote(settings, [], "/w")).toContain("Writable: only the working directory, /lib and /tmp");
    // Without the run's folder it names every writable folder, as before.
    expect(sandboxNote(settings)).toContain("Writable: only /w, /lib and /tmp");
  });
});

describe("sandbox settings", () => {
  it("true means: on, fail if unavailable, autoAllowBash, no network, cwd and additionalDirectories writable", () => {
    expect(sandboxSettings(opts(true, { additionalDirectories: ["../lib"] }), "/h")).toMatchObject({
      enabled: true,
      failIfUnavailable: true,
      autoAllowBash: true,
      network: { mode: "none" },
      writable: ["/w", "/lib"],
    });
    // Unset: on by default, but a missing sandbox only warns, and nothing is auto-allowed.
    expect(sandboxSettings(opts(undefined), "/h", {})).toMatchObject({
      enabled: true,
      origin: "default",
      failIfUnavailable: false,
      autoAllowBash: false,
    });
    expect(sandboxSettings(opts(undefined), "/h", { UBIQUITY_REQUIRE_SANDBOX: "1" })).toMatchObject({
      enabled: true,
      origin: "required",
      failIfUnavailable: true,
    });
    expect(sandboxSettings(opts(false), "/h", {}).enabled).toBe(false);
    // MCP servers the user configured keep their network unless the network setting is given.
    expect(sandboxSettings(opts(undefined), "/h", {})).toMatchObject({
      network: { mode: "none" },
      mcpNetwork: { mode: "all" },
    });
    expect(sandboxSettings(opts({ network: "none" }), "/h", {})).toMatchObject({
      network: { mode: "none" },
      mcpNetwork: { mode: "none" },
    });
    expect(sandboxSettings(opts({ enabled: false }), "/h").enabled).toBe(false);
    expect(sandboxSettings(opts({ autoAllowBashIfSandboxed: false }), "/h").autoAllowBash).toBe(false);
    expect(sandboxSettings(opts({ network: "all" }), "/h").network).toEqual({ mode: "all" });
    expect(sandboxSettings(opts({ network: { allowedDomains: [] } }), "/h").network).toEqual({ mode: "none" });
    expect(
      sandboxSettings(opts({ filesystem: { allowWrite: ["~/cache"], denyRead: ["./private"] } }), "/h"),
    ).toMatchObject({ writable: ["/w", "/h/cache"], denyRead: ["/w/private"] });
  });

  it("excludedCommands match a command and its leading words, nothing else", () => {
    expect(isExcluded("docker ps", ["docker"])).toBe(true);
    expect(isExcluded("docker", ["docker:*"])).toBe(true);
    expect(isExcluded("git push origin", ["git push"])).toBe(true);
    expect(isExcluded("git status", ["git push"])).toBe(false);
    expect(isExcluded("dockerx ps", ["docker"])).toBe(false);
    expect(isExcluded("docker;curl evil", ["docker"])).toBe(false);
  });
});

describe("the proxy's host rules", () => {
  it("matches names, subdomain wildcards and ports", () => {
    expect(hostMatches("example.com", "EXAMPLE.com", 443).hit).toBe(true);
    expect(hostMatches("example.com", "api.example.com", 443).hit).toBe(false);
    expect(hostMatches("*.example.com", "api.example.com", 443)).toEqual({ hit: true, exact: false });
    expect(hostMatches("*.example.com", "example.com", 443).hit).toBe(false);
    expect(hostMatches("localhost:8080", "localhost", 8080).hit).toBe(true);
    expect(hostMatches("localhost:8080", "localhost", 8081).hit).toBe(false);
    expect(hostMatches("[::1]:80", "::1", 80).hit).toBe(true);
  });

  it("a name resolving to loopback passes only with an exact entry (no DNS rebinding into the host)", async () => {
    const toLoopback = async () => "127.0.0.1";
    const wildcard = new FilteringProxy(["*.corp.test"], [], undefined, toLoopback);
    expect(await wildcard.decide("api.corp.test", 80)).toMatchObject({
      reason: expect.stringContaining("local address 127.0.0.1"),
    });
    const exact = new FilteringProxy(["api.corp.test"], [], undefined, toLoopback);
    expect(await exact.decide("api.corp.test", 80)).toEqual({ address: "127.0.0.1" });
    const denied = new FilteringProxy(["*.corp.test"], ["bad.corp.test"], undefined, toLoopback);
    expect(await denied.decide("bad.corp.test", 80)).toMatchObject({
      reason: expect.stringContaining("deniedDomains"),
    });
  });
});

describe("the layout of a writable folder", () => {
  it("pins .git, keeps hooks/config read-only, puts placeholders for missing folders and watches missing files", () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "ubq-sbx-layout-")));
    try {
      mkdirSync(join(root, ".git", "hooks"), { recursive: true });
      writeFileSync(join(root, ".git", "config"), "");
      writeFileSync(join(root, ".mcp.json"), "{}");
      mkdirSync(join(root, ".vscode"));
      const layout = layoutRoot(root, [join(root, "locked.txt"), "/elsewhere/x"]);
      expect(layout.pinned).toEqual([join(root, ".git")]);
      expect(layout.readOnly).toEqual(
        expect.arrayContaining([
          join(root, ".git", "hooks"),
          join(root, ".git", "config"),
          join(root, ".mcp.json"),
          join(root, ".vscode"),
        ]),
      );
      expect(layout.placeholders).toEqual(
        [".ubiquity", ".idea", ".husky", ".claude", ".githooks"].map((n) => join(root, n)),
      );
      mkdirSync(join(root, ".git", "modules", "lib", "dep", "hooks"), { recursive: true });
      writeFileSync(join(root, ".git", "modules", "lib", "dep", "HEAD"), "ref: refs/heads/main\n");
      const withSubmodule = layoutRoot(root);
      expect(withSubmodule.pinned).toContain(join(root, ".git", "modules", "lib", "dep"));
      expect(withSubmodule.readOnly).toContain(join(root, ".git", "modules", "lib", "dep", "hooks"));
      expect(withSubmodule.watched).toContain(join(root, ".git", "modules", "lib", "dep", "config"));
      expect(layoutRoot(root, [], root).placeholders).toEqual(
        expect.arrayContaining([join(root, ".ssh"), join(root, ".aws")]),
      ); // the home folder as a writable folder
      expect(layout.watched).toEqual(
        expect.arrayContaining([
          join(root, "ubiquity.config.ts"),
          join(root, ".ubiquityrc"),
          join(root, "UBIQUITY.md"),
          join(root, ".bashrc"),
          join(root, "locked.txt"),
        ]),
      );
      expect(layout.watched).not.toContain(join(root, ".mcp.json"));
      expect(layout.watched).not.toContain(join(root, "package.json"));
      expect([...layout.readOnly, ...layout.watched]).not.toContain("/elsewhere/x");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("a program installed under /tmp stays visible behind the private /tmp", () => {
  it("finds the /tmp folders of the command (on PATH or absolute, symlinks followed) and of absolute arguments", () => {
    const root = realpathSync(mkdtempSync("/tmp/ubq-prog-"));
    const other = realpathSync(mkdtempSync("/tmp/ubq-prog-"));
    try {
      mkdirSync(join(root, "bin"));
      writeFileSync(join(root, "bin", "server"), "#!/bin/sh\n");
      writeFileSync(join(other, "script.js"), "");
      const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), "ubq-link-")));
      symlinkSync(join(root, "bin", "server"), join(elsewhere, "server-link"));
      expect(programRootsOf("server", [], `/usr/bin:${join(root, "bin")}`)).toEqual([root]);
      expect(programRootsOf("/usr/bin/env", [join(other, "script.js"), "-c", "/tmp/not-there"], undefined)).toEqual([
        other,
      ]);
      expect(programRootsOf(join(elsewhere, "server-link"), [], undefined)).toContain(root);
      expect(programRootsOf("sh", ["-c", "echo hi"], "/usr/bin:/bin")).toEqual([]);
      // A hook's command is one shell string: the paths in its text count for the user's own hook, never for Bash.
      const hook = `"${join(other, "script.js")}" start; cat </tmp/not-there`;
      expect(programRootsOf("/bin/bash", ["-c", hook], undefined)).toEqual([]);
      expect(programRootsOf("/bin/bash", ["-c", hook], undefined, undefined, true)).toEqual([other]);
      // A /tmp folder that holds the home (HOME=<root>/home): the folder beside the home stands
      // in for it, never the root (which would show the hidden home); a program in the home is not here.
      mkdirSync(join(root, "home", "tool"), { recursive: true });
      writeFileSync(join(root, "home", "tool", "x.js"), "");
      const home = join(root, "home");
      expect(programRootsOf("server", [], `/usr/bin:${join(root, "bin")}`, home)).toEqual([join(root, "bin")]);
      expect(programRootsOf("node", [join(root, "home", "tool", "x.js")], "/usr/bin", home)).toEqual([]);
      expect(programRootsOf("node", [join(other, "script.js")], "/usr/bin", home)).toEqual([other]);
      rmSync(elsewhere, { recursive: true, force: true });
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe("the Seatbelt profile (macOS; text only: it cannot run here)", () => {
  it("denies writes outside the writable folders, writes to protected paths, secret reads and the network", () => {
    const text = seatbeltProfile({
      writable: ["/w"],
      tmp: "/t",
      protectedFolders: ["/w/.ubiquity"],
      protectedPaths: ["/w/.mcp.json"],
      secrets: ["/h/.ssh"],
      network: { mode: "none" },
    });
    expect(text).toContain(
      '(deny file-write* (require-not (require-any (subpath "/w") (subpath "/t") (subpath "/dev"))))',
    );
    expect(text).toContain('(deny file-write* (subpath "/w/.ubiquity"))');
    expect(text).toContain('(deny file-write* (literal "/w/.mcp.json"))');
    expect(text).toContain('(deny file-read* (subpath "/h/.ssh"))');
    expect(text).toContain("(deny network*)");
    expect(
      seatbeltProfile({
        writable: [],
        tmp: "/t",
        protectedFolders: [],
        protectedPaths: [],
        secrets: [],
        network: { mode: "all" },
      }),
    ).not.toContain("network");
  });
});

describe("violations in output", () => {
  it("tells refused writes, reads of secrets and connections without network from other failures", () => {
    const out = [
      "touch: cannot touch '/etc/x': Read-only file system",
      "cat: /h/.ssh/id_rsa: Permission denied",
      "cat: notes.txt: Permission denied",
      "curl: (6) Could not resolve host: example.com",
      "grep: nothing: No such file or directory",
    ].join("\n");
    expect(violationsInOutput(out, ["/h/.ssh"], { mode: "none" }).map((v) => v.kind)).toEqual([
      "write",
      "read",
      "network",
    ]);
    expect(violationsInOutput(out, ["/h/.ssh"], { mode: "all" }).map((v) => v.kind)).toEqual(["write", "read"]);
  });
});
