/**
 * `--allow-repos` under attack: a queue writer picks repository strings that the list reads as a
 * repository it names while git reads them as another host (or as no remote at all, so the list
 * is never asked). Each test aims a string at `runJob` with real git, and counts what reached the
 * "attacker": a TCP server on 127.0.0.1 (what git:// sends it), an HTTP server on 127.0.0.1 (its
 * requests), and a fake ssh (GIT_SSH_COMMAND) that logs the host git asks it to reach and fails.
 * A second part checks the forms that hold (submodules, redirects on later requests, HTTP
 * alternates, insteadOf aliases, double encoding) stay held.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { execFileSync } from "node:child_process";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { scriptedModel } from "../../src/testing/index";
import defaultPreset from "../../presets/default";
import { runJob, type JobContext } from "../../plugins/fleet/run-job";
import { checkRemote, isRemote, remoteName } from "../../plugins/fleet/remote-policy";
import { jobSchema, type FleetJob } from "../../plugins/fleet/jobs";
import { jsonlStore } from "../../plugins/fleet/store";
import { freePort } from "../helpers/free-port";
import { tempDirs } from "../helpers/temp-dirs";
import { bareRepo, git, servedRepos } from "./git-server";

const temp = tempDirs();
let served: string;
let daemon: { dir: string; port: number; stop(): void };
let port: number;
/** The attacker's git:// side: a TCP server that records the first packet of each connection. */
let tcp: TcpServer;
let tcpPort: number;
const tcpSeen: string[] = [];
/** The attacker's HTTP side: records every request. */
let http: Server;
let httpPort: number;
const httpSeen: string[] = [];
/** A dumb-HTTP server of `served` whose object requests redirect to the attacker, and whose http-alternates names it. */
let dumb: Server;
let dumbPort: number;
let sshLog: string;
let sshScript: string;

beforeAll(async () => {
  daemon = await servedRepos();
  ({ dir: served, port } = daemon);
  tcp = createTcpServer((socket) => {
    // A connection is noted at once, and what it sends as it arrives (no wait a loaded machine could outrun).
    const at = tcpSeen.push("(connected)") - 1;
    let seen = "";
    socket.on("data", (data) => {
      seen += data.toString();
      tcpSeen[at] = seen;
      // git's first pkt-line starts with its whole length in four hex digits (git may write those
      // apart from the rest): hang up once all of it is here, or at once for anything else.
      const length = Number.parseInt(seen.slice(0, 4), 16);
      if (!/^[0-9a-f]{4}/.test(seen) || seen.length >= length) socket.destroy();
    });
    socket.on("error", () => {});
  });
  tcpPort = await freePort();
  await new Promise<void>((r) => tcp.listen(tcpPort, "127.0.0.1", r));
  http = createHttpServer((req, res) => {
    httpSeen.push(`${req.headers.host} ${req.url}`);
    res.writeHead(404).end();
  });
  httpPort = await freePort();
  await new Promise<void>((r) => http.listen(httpPort, "127.0.0.1", r));
  dumb = createHttpServer(async (req, res) => {
    const path = new URL(req.url!, "http://x").pathname;
    if (path.endsWith("/objects/info/http-alternates"))
      return res.writeHead(200).end(`http://127.0.0.1:${httpPort}/alternate/objects\n`);
    if (path.includes("/objects/"))
      return res.writeHead(302, { location: `http://127.0.0.1:${httpPort}${req.url}` }).end();
    try {
      res.writeHead(200).end(await readFile(join(served, path)));
    } catch {
      res.writeHead(404).end();
    }
  });
  dumbPort = await freePort();
  await new Promise<void>((r) => dumb.listen(dumbPort, "127.0.0.1", r));
  sshLog = join(served, "ssh.log");
  sshScript = join(served, "fake-ssh");
  writeFileSync(sshScript, `#!/bin/sh\necho "$*" >> '${sshLog}'\nexit 1\n`);
  chmodSync(sshScript, 0o755);
});

afterAll(async () => {
  daemon?.stop(); // and removes the served folder
  await Promise.all([tcp, http, dumb].map((s) => new Promise((r) => (s ? s.close(r) : r(undefined)))));
});

beforeEach(() => {
  tcpSeen.length = 0;
  httpSeen.length = 0;
  vi.stubEnv("GIT_SSH_COMMAND", sshScript);
  if (existsSync(sshLog)) writeFileSync(sshLog, "");
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** Give the attacker's servers time to note a connection (they record it 50 ms after it opens). */
const settle = () => new Promise((r) => setTimeout(r, 100));
/** The hosts the fake ssh was asked to reach. */
const sshHosts = () => (existsSync(sshLog) ? readFileSync(sshLog, "utf8") : "");
/** Everything the attacker saw: git:// packets, HTTP requests, ssh hosts. */
const attackerSaw = () => [
  ...tcpSeen,
  ...httpSeen,
  ...sshHosts()
    .split("\n")
    .filter((l) => l.includes("evil.example")),
];

function contextFor(dir: string, repository: string, extra: Partial<JobContext> = {}): JobContext {
  const job = jobSchema.parse({
    prompt: "go",
    repository,
    sessionId: `s-${Math.random().toString(36).slice(2)}`,
  }) as FleetJob;
  const config = { presets: [defaultPreset], model: scriptedModel(["done"]), marketPricing: false, cwd: dir };
  return {
    job,
    jobId: "7",
    attempt: 0,
    config,
    store: jsonlStore(join(dir, "sessions")),
    workdir: join(dir, "work"),
    worker: "w1",
    signal: new AbortController().signal,
    progress: () => {},
    ...extra,
  };
}

/** The list every attack runs against: one repository on the test daemon, one ssh organisation. */
const allowed = () => [`127.0.0.1:${port}/allowed`, "git.allowed.example/acme"];

describe("fleet attack: repository strings --allow-repos reads as a listed repository and git reads as another host", () => {
  const attacks: [string, () => string][] = [
    [
      "http: a # ends the authority for curl (userinfo to the list)",
      () => `http://127.0.0.1:${httpPort}#@127.0.0.1:${port}/allowed`,
    ],
    ["http: a ? ends the authority for curl", () => `http://127.0.0.1:${httpPort}?@127.0.0.1:${port}/allowed`],
    [
      "http: an empty authority (curl takes the next segment as the host)",
      () => `http:///127.0.0.1:${httpPort}/allowed`,
    ],
    [
      "git://: %2f in the userinfo (git decodes the URL before it splits the host)",
      () => `git://127.0.0.1:${tcpPort}%2fz@127.0.0.1:${port}/allowed.git`,
    ],
    ["git://: a trailing carriage return (the list saw no URL)", () => `git://127.0.0.1:${tcpPort}/allowed.git\r`],
    ["ssh://: %2f in the userinfo", () => "ssh://evil.example%2fz@git.allowed.example/acme/x"],
    ["ssh://: a trailing newline (the list saw no URL)", () => "ssh://evil.example/acme/x\n"],
    [
      "scp-like: a colon before the user (git's host ends at the first colon)",
      () => "evil.example:x@git.allowed.example:acme/x",
    ],
    [
      "scp-like: @[...] in the path (git's host_end takes the brackets)",
      () => "git@git.allowed.example:acme/x@[evil.example]:y",
    ],
  ];

  it.each(attacks)("%s: refused before git runs, nothing reaches the attacker", async (_, repository) => {
    const dir = temp();
    const error = await runJob(contextFor(dir, repository(), { allowRepositories: allowed() })).then(
      () => undefined,
      (e: Error) => e,
    );
    // Let the attacker's servers note what they got, then look.
    await settle();
    expect(attackerSaw()).toEqual([]);
    // Refused by the list, or (a string git reads as ssh but that is no remote to the list) taken as a local path, which needs --allow-cwd.
    expect(error?.message).toMatch(/--allow-repos|--allow-cwd/);
    expect(existsSync(join(dir, "work"))).toBe(false);
  });

  it("user@host:path with a / or : before the host's colon is a local path to every check, and git gets it as one", async () => {
    // git: a "/" before the first ":" makes it a local path, so the fleet resolves it as one (allowCwd applies).
    expect(isRemote("a@b/c:d")).toBe(false);
    // git: ssh to host "a": the fleet must not pass it to git verbatim as an unchecked "local" string.
    expect(isRemote("a:b@c:d")).toBe(false);
    expect(isRemote("git@github.com:acme/x")).toBe(true);
    expect(isRemote("https://github.com/acme/x")).toBe(true);
    expect(isRemote("file:///srv/x")).toBe(false);
    // Where local folders are allowed, git gets such a string as an absolute path: no ssh to evil.example.
    const dir = temp();
    await expect(
      runJob(
        contextFor(dir, "evil.example:x@git.allowed.example:acme/x", { allowRepositories: allowed(), allowCwd: [dir] }),
      ),
    ).rejects.toThrow(/cannot check out .*does not appear to be a git repository/s);
    expect(attackerSaw()).toEqual([]);
  });

  it("the same strings without the list still reach git (the list is what stops them)", async () => {
    const dir = temp();
    await expect(
      runJob(contextFor(dir, `git://127.0.0.1:${tcpPort}%2fz@127.0.0.1:${port}/allowed.git`)),
    ).rejects.toThrow(/cannot check out/);
    for (const end = Date.now() + 60_000; !tcpSeen.join().includes("git-upload-pack") && Date.now() < end; )
      await settle();
    expect(tcpSeen.join()).toContain("git-upload-pack /z@127.0.0.1");
  });
});

describe("fleet attack: a file:// repository that git decodes to a folder outside --allow-cwd", () => {
  it("an encoded / in a file:// URL does not climb out of the allowed folder", async () => {
    const dir = temp();
    const root = join(dir, "allowed");
    mkdirSync(root);
    bareRepo(dir, "victim", "victim.txt");
    // git url-decodes the whole URL: root/./../victim.git. Node's fileURLToPath refuses %2f, and the fallback read it undecoded (inside root).
    const repository = `file://${root}/.%2f..%2fvictim.git`;
    await expect(runJob(contextFor(dir, repository, { allowCwd: [root] }))).rejects.toThrow(/--allow-cwd/);
    expect(existsSync(join(dir, "work", "7", "victim.txt"))).toBe(false);
  });

  it("a file:// URL inside the allowed folder still checks out (encoded or not)", async () => {
    const dir = temp();
    bareRepo(dir, "mine", "mine.txt");
    const outcome = await runJob(contextFor(dir, `file://${dir}/m%69ne.git`, { allowCwd: [dir] }));
    expect([outcome.subtype, existsSync(join(dir, "work", "7", "mine.txt"))]).toEqual(["success", true]);
  });
});

describe("fleet attack: what holds with --allow-repos", () => {
  it("a listed repository's submodules are not fetched, even with submodule.recurse in the worker's git config", async () => {
    const dir = temp();
    const base = temp();
    bareRepo(base, "withsub", "top.txt", (work) => {
      writeFileSync(
        join(work, ".gitmodules"),
        `[submodule "mod"]\n\tpath = mod\n\turl = git://127.0.0.1:${tcpPort}/evil.git\n`,
      );
      git(work, "add", ".gitmodules");
      git(work, "update-index", "--add", "--cacheinfo", `160000,${"1".repeat(40)},mod`);
    });
    execFileSync("cp", ["-r", join(base, "withsub.git"), served]);
    writeFileSync(join(dir, "gitconfig"), "[submodule]\n\trecurse = true\n");
    vi.stubEnv("GIT_CONFIG_GLOBAL", join(dir, "gitconfig"));
    const outcome = await runJob(
      contextFor(dir, `git://127.0.0.1:${port}/withsub.git`, { allowRepositories: [`127.0.0.1:${port}/withsub`] }),
    );
    expect(outcome.subtype).toBe("success");
    expect(existsSync(join(dir, "work", "7", "top.txt"))).toBe(true);
    // The commit holds the submodule (a gitlink), and nothing of it was fetched.
    expect(git(join(dir, "work", "7"), "ls-tree", "HEAD", "mod")).toMatch(/^160000 commit 1{40}\tmod/);
    expect(existsSync(join(dir, "work", "7", "mod")) ? readdirSync(join(dir, "work", "7", "mod")) : []).toEqual([]);
    await settle();
    expect(tcpSeen).toEqual([]);
  });

  it("a redirect on a later request (dumb HTTP objects) and an http-alternates file are not followed", async () => {
    const dir = temp();
    await expect(
      runJob(
        contextFor(dir, `http://127.0.0.1:${dumbPort}/allowed.git`, {
          allowRepositories: [`127.0.0.1:${dumbPort}/allowed`],
        }),
      ),
    ).rejects.toThrow(/cannot check out/);
    await settle();
    expect(httpSeen).toEqual([]);
  });

  it("an insteadOf alias in the worker's git config is never reached through a job's local-looking string", async () => {
    const dir = temp();
    writeFileSync(join(dir, "gitconfig"), `[url "git://127.0.0.1:${tcpPort}/"]\n\tinsteadOf = evil:\n`);
    vi.stubEnv("GIT_CONFIG_GLOBAL", join(dir, "gitconfig"));
    // Not a remote to the fleet: a path under the worker's folder (git gets it absolute, so no insteadOf prefix matches).
    await expect(runJob(contextFor(dir, "evil:x", { allowRepositories: allowed(), allowCwd: [dir] }))).rejects.toThrow(
      /cannot check out/,
    );
    await settle();
    expect(tcpSeen).toEqual([]);
  });

  it("double encoding, a trailing /. and .git variants reach no other repository", async () => {
    const dir = temp();
    // Decoded once by the list and once by git: %2e%2e stays a name, the daemon has no such path.
    await expect(
      runJob(
        contextFor(dir, `git://127.0.0.1:${port}/allowed/%252e%252e/secret.git`, { allowRepositories: allowed() }),
      ),
    ).rejects.toThrow(/cannot check out/);
    expect(existsSync(join(dir, "work", "7", "secret.txt"))).toBe(false);
    expect(() => checkRemote(`git://127.0.0.1:${port}/allowed/.`, allowed())).toThrow(/"\." or "\.\."/);
    expect(() => checkRemote(`git://127.0.0.1:${port}/secret.git/`, allowed())).toThrow(/--allow-repos/);
    expect(() => checkRemote(`git://127.0.0.1:${port}/allowed.git/`, allowed())).not.toThrow();
    expect(() => checkRemote("https://git.allowed.example/acme@evil.example/x", ["git.allowed.example/acme"])).toThrow(
      /--allow-repos/,
    );
  });

  it("names the ordinary forms as before", () => {
    expect(remoteName("https://x-access-token:ghp_abc@github.com/acme/cli.git")).toBe("github.com/acme/cli");
    expect(remoteName("ssh://git@[::1]:2222/team/api.git")).toBe("[::1]:2222/team/api");
    expect(remoteName("git+ssh://git@github.com/acme/cli")).toBe("github.com/acme/cli");
    expect(remoteName("git@github.com:acme/cli.git")).toBe("github.com/acme/cli");
    expect(remoteName("https://github.com/acme/my%20cli")).toBe("github.com/acme/my cli");
  });
});
