/**
 * A protected path that is also a secret (`.env`: the engine's sensitive list and the secret
 * names) is masked once: the read-only bind of it over itself, which the secret's mask on the
 * same place covered whole, is left out. What a sandboxed command sees and may do there is the
 * same as with it: the spawn run as it is now and with that bind put back, side by side.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ResolvedOptions } from "ubiquity/plugin";
import { sandboxAvailability } from "../../plugins/sandbox/availability";
import { sandboxSettings } from "../../plugins/sandbox/config";
import { SandboxRuntime, type SpawnSpec } from "../../plugins/sandbox/runtime";
import { SKIP } from "./helpers";

const PROBE = [
  "cd $1",
  "ls -la --time-style=+ . | grep -v ' \\.\\.\\?$' | awk '{print $1, $2, $5, $NF}'",
  "stat -c '%n %s %a %F' .env .vscode/settings.json",
  "cat .env 2>&1",
  "(echo x > .env) 2>&1",
  "(echo x >> .vscode/settings.json) 2>&1",
  "rm -f .env 2>&1; mv .env moved 2>&1; ln .env hard 2>&1; chmod 644 .env 2>&1",
  "ls -A",
].join("\n");

describe.skipIf(SKIP)("one mount for a path both protected and secret", () => {
  const made: string[] = [];
  let runtime: SandboxRuntime | undefined;
  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("masks .env once, and a command sees and may do there what it did with the read-only bind under the mask", () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), "ubq-fold-ws-")));
    const home = realpathSync(mkdtempSync(join(tmpdir(), "ubq-fold-home-")));
    made.push(ws, home);
    writeFileSync(join(ws, ".env"), "API_TOKEN=hunter2\n");
    mkdirSync(join(ws, ".vscode"));
    writeFileSync(join(ws, ".vscode", "settings.json"), "{}\n");
    const options = { cwd: ws, sandbox: true } as unknown as ResolvedOptions;
    runtime = new SandboxRuntime(sandboxSettings(options, home, {}), sandboxAvailability(), [], () => {});
    const wrap = () =>
      runtime!.wrap(
        { command: "/bin/bash", args: ["-c", PROBE, "probe", ws], cwd: ws, env: { PATH: "/usr/bin:/bin" } },
        { kind: "hook" },
      );
    wrap(); // the first spawn makes the placeholder folders the later ones bind over
    const now = wrap();
    const env = join(ws, ".env");
    const onEnv = now.args.flatMap((a, i) => (a === env && now.args[i - 2] === "--ro-bind" ? [now.args[i - 1]] : []));
    // One mount at .env: the mask (the run's unreadable file), not .env bound over itself.
    expect(onEnv).toHaveLength(1);
    expect(onEnv[0]).toMatch(/\/unreadable$/);
    // The list as it was: the read-only bind of .env over itself, before the mask.
    const at = now.args.findIndex((a, i) => a === "--ro-bind" && now.args[i + 2] === env);
    const before: SpawnSpec = {
      ...now,
      args: [...now.args.slice(0, at), "--ro-bind", env, env, ...now.args.slice(at)],
    };
    const run = (spec: SpawnSpec) =>
      spawnSync(spec.command, spec.args, { cwd: spec.cwd, env: spec.env as NodeJS.ProcessEnv, encoding: "utf8" });
    const was = run(before);
    const is = run(now);
    expect(was.status, was.stderr).toBe(0);
    expect(is.stderr).toBe(was.stderr);
    expect(is.stdout).toBe(was.stdout);
    expect(is.stdout).toContain("cat: .env: Permission denied");
    expect(is.stdout).not.toContain("hunter2");
    expect(is.stdout).toContain(".vscode/settings.json: Read-only file system");
    expect(readFileSync(env, "utf8")).toBe("API_TOKEN=hunter2\n");
    expect(readFileSync(join(ws, ".vscode", "settings.json"), "utf8")).toBe("{}\n");
  });
});
