/** Real git repositories served on 127.0.0.1 for the fleet's repository tests: bare repositories and a `git daemon`. */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { connect } from "node:net";
import { join } from "node:path";
import { freePort } from "../helpers/free-port";

/** git with a fixed identity (and local clones allowed, for building the repositories). */
export const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.email=a@b", "-c", "user.name=a", "-c", "protocol.file.allow=always", ...args], {
    cwd,
    stdio: "pipe",
  }).toString();

/** A bare repository `name`.git under `base` with one commit holding `file` (and what `extra` stages), ready for dumb HTTP too. */
export function bareRepo(base: string, name: string, file: string, extra: (work: string) => void = () => {}): void {
  const work = join(base, `${name}-work`);
  mkdirSync(work, { recursive: true });
  git(work, "init", "-q");
  writeFileSync(join(work, file), `${name}\n`);
  git(work, "add", ".");
  extra(work);
  git(work, "commit", "-q", "-m", "one");
  git(base, "clone", "-q", "--bare", work, join(base, `${name}.git`));
  git(join(base, `${name}.git`), "update-server-info");
}

/** Resolves once something accepts connections on `port` (5 s at most). */
export async function listening(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true))).once("error", () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A `git daemon` serving every repository under `base` on 127.0.0.1 (git://127.0.0.1:<port>/<name>.git). */
export async function gitDaemon(base: string): Promise<{ port: number; stop(): void }> {
  const port = await freePort();
  const daemon = spawn(
    "git",
    ["daemon", "--export-all", "--reuseaddr", `--base-path=${base}`, `--port=${port}`, "--listen=127.0.0.1", base],
    { stdio: "ignore" },
  );
  await listening(port);
  return { port, stop: () => void daemon.kill() };
}

/** What the repository tests serve: a temp folder holding `allowed.git` (ok.txt) and `secret.git` (secret.txt), behind a git daemon. */
export async function servedRepos(): Promise<{ dir: string; port: number; stop(): void }> {
  const dir = mkdtempSync(join(tmpdir(), "ubq-served-"));
  bareRepo(dir, "allowed", "ok.txt");
  bareRepo(dir, "secret", "secret.txt");
  const daemon = await gitDaemon(dir);
  return { dir, port: daemon.port, stop: () => (daemon.stop(), rmSync(dir, { recursive: true, force: true })) };
}
