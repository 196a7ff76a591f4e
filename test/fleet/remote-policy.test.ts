/**
 * `--allow-repos` (`allowRepositories`): a job's remote repository is a queue writer's string that
 * the worker clones with its own git credentials. With the list set, only the repositories it
 * names are cloned: another one on the same host, a `..` path that git would resolve elsewhere,
 * and an HTTP redirect to another host are refused before anything of theirs is fetched. A real
 * `git daemon` on 127.0.0.1 serves the repositories; an "attacker" HTTP server counts requests.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel } from "../../src/testing/index";
import defaultPreset from "../../presets/default";
import { runJob, type JobContext } from "../../plugins/fleet/run-job";
import { checkRemote, matchesPattern, remoteName } from "../../plugins/fleet/remote-policy";
import { jobSchema, type FleetJob } from "../../plugins/fleet/jobs";
import { jsonlStore } from "../../plugins/fleet/store";
import { freePort } from "../helpers/free-port";
import { tempDirs } from "../helpers/temp-dirs";
import { servedRepos } from "./git-server";

const temp = tempDirs();
let _served: string;
let daemon: { dir: string; port: number; stop(): void };
let port: number;
let attacker: Server;
let attackerPort: number;
let attackerHits = 0;
let redirector: Server;
let redirectorPort: number;

beforeAll(async () => {
  daemon = await servedRepos();
  ({ dir: _served, port } = daemon);
  attacker = createServer((_req, res) => {
    attackerHits++;
    res.writeHead(404).end();
  });
  attackerPort = await freePort();
  await new Promise<void>((r) => attacker.listen(attackerPort, "127.0.0.1", r));
  // An allowed-looking HTTP repository that redirects every request to the attacker.
  redirector = createServer((req, res) =>
    res.writeHead(301, { location: `http://127.0.0.1:${attackerPort}${req.url}` }).end(),
  );
  redirectorPort = await freePort();
  await new Promise<void>((r) => redirector.listen(redirectorPort, "127.0.0.1", r));
});

afterAll(async () => {
  daemon?.stop(); // and removes the served folder
  await new Promise((r) => attacker?.close(r));
  await new Promise((r) => redirector?.close(r));
});

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

describe("fleet --allow-repos: the remote repositories a worker clones", () => {
  it("clones a listed repository and refuses another on the same host before git runs", async () => {
    const dir = temp();
    const allowRepositories = [`127.0.0.1:${port}/allowed`];
    const ok = await runJob(contextFor(dir, `git://127.0.0.1:${port}/allowed.git`, { allowRepositories }));
    expect(ok.subtype).toBe("success");
    expect(existsSync(join(dir, "work", "7", "ok.txt"))).toBe(true);

    const other = temp();
    await expect(
      runJob(contextFor(other, `git://127.0.0.1:${port}/secret.git`, { allowRepositories })),
    ).rejects.toThrow(/does not clone git:\/\/127\.0\.0\.1:\d+\/secret\.git .*--allow-repos/);
    expect(existsSync(join(other, "work"))).toBe(false);
  });

  it("without the list, any remote is cloned as before (and the same job then reaches the other repository)", async () => {
    const dir = temp();
    const outcome = await runJob(contextFor(dir, `git://127.0.0.1:${port}/secret.git`));
    expect(outcome.subtype).toBe("success");
    expect(existsSync(join(dir, "work", "7", "secret.txt"))).toBe(true);
  });

  it("a .. path that git would resolve to another repository is refused", async () => {
    const dir = temp();
    const allowRepositories = [`127.0.0.1:${port}/allowed`];
    for (const repository of [
      `git://127.0.0.1:${port}/allowed/../secret.git`,
      `git://127.0.0.1:${port}/allowed/%2e%2e/secret.git`,
    ]) {
      await expect(runJob(contextFor(dir, repository, { allowRepositories }))).rejects.toThrow(/"\." or "\.\."/);
    }
    expect(existsSync(join(dir, "work"))).toBe(false);
  });

  it("an HTTP redirect from a listed repository to another host is not followed: the attacker gets no request", async () => {
    const dir = temp();
    const allowRepositories = [`127.0.0.1:${redirectorPort}/team`];
    attackerHits = 0;
    await expect(
      runJob(contextFor(dir, `http://127.0.0.1:${redirectorPort}/team/app.git`, { allowRepositories })),
    ).rejects.toThrow(/cannot check out/);
    expect(attackerHits).toBe(0);
    // The same clone without the list follows git's default (the initial redirect), and the attacker sees it.
    const open = temp();
    await expect(runJob(contextFor(open, `http://127.0.0.1:${redirectorPort}/team/app.git`))).rejects.toThrow(
      /cannot check out/,
    );
    expect(attackerHits).toBeGreaterThan(0);
  });

  it("names remote repositories the way the patterns read them", () => {
    expect(remoteName("https://bot:t0ken@GitHub.com/acme/cli.git")).toBe("github.com/acme/cli");
    expect(remoteName("git@github.com:acme/cli.git")).toBe("github.com/acme/cli");
    expect(remoteName("ssh://git@git.internal:8443/team/api")).toBe("git.internal:8443/team/api");
    expect(remoteName("/srv/repos/a")).toBeUndefined();
    expect(remoteName("file:///srv/repos/a")).toBeUndefined();
    expect(remoteName("./a")).toBeUndefined();
    expect(matchesPattern("github.com/acme", "github.com/acme/cli")).toBe(true);
    expect(matchesPattern("github.com/acme/*", "github.com/acme/cli")).toBe(true);
    expect(matchesPattern("github.com/acme", "github.com/acme-evil/cli")).toBe(false);
    expect(matchesPattern("github.com/acme/cli", "github.com/acme")).toBe(false);
    expect(matchesPattern("GitHub.com/acme", "github.com/acme/cli")).toBe(true);
    expect(matchesPattern("github.com/Acme", "github.com/acme/cli")).toBe(false);
    // A password in the URL never appears in the refusal.
    expect(() => checkRemote("https://bot:ghp_s3cret@github.com/other/x.git", ["github.com/acme"])).toThrow(
      /github\.com\/other\/x/,
    );
    try {
      checkRemote("https://bot:ghp_s3cret@github.com/other/x.git", ["github.com/acme"]);
    } catch (error) {
      expect((error as Error).message).not.toContain("ghp_s3cret");
    }
  });
});
