/**
 * What a newcomer's trial (ze, 2026-12-07: a platform engineer makes Ubiquity safe by policy for
 * 40 developers who use Claude Code and Codex — an organisation-wide managed policy, deny rules
 * nobody can loosen, the sandbox on with write paths, `disableBypassPermissionsMode`, a PreToolUse
 * hook that blocks and an audit log, telemetry, and a check that a developer's flags or an untrusted
 * clone change none of it; the packed package in an empty project, a scripted attacker model on
 * 127.0.0.1) met:
 * - there was no managed policy: no page said so but one line of the Claude Code page ("Not read
 *   yet: managed (enterprise) settings"), and `/etc/claude-code/managed-settings.json`, the policy
 *   the team's machines already have, was never read — every deny rule, hook and sandbox setting in
 *   it silently absent. Every run now reads the system's managed policy files (Ubiquity's own,
 *   `/etc/ubiquity/managed-settings.json`, and Claude Code's, each with its `managed-settings.d/`),
 *   whatever `settingSources`, `compat` and trust say, above everything a user types: its sandbox
 *   and permission mode win over `--no-sandbox`, `--permission-mode`, `--settings` and the config
 *   (each overruled one is named), its caps hold against a larger `--max-budget-usd`, its hooks run
 *   whatever another file's `disableAllHooks` says, and a run without the plugin a policy needs
 *   (permissions, sandbox, hooks) stops, and `system/init` names the policy files it applies
 *   (`managedPolicy`), the check an administrator has (Claude Code shows them in /status);
 * - a policy a managed file sets and ubiquity cannot enforce (`allowManagedHooksOnly`,
 *   `allowManagedPermissionRulesOnly`, `sandbox.network.allowManagedDomainsOnly`, …), a key of our
 *   own managed file nothing reads (`permisions`), or a managed hook that cannot be read (a typo'd
 *   `"type": "comand"`, skipped with a warning in any other file) now stops every run naming the
 *   file and the key: a warning on stderr is not what a policy nobody applies deserves;
 * - `"disableBypassPermissionsMode": true` in a Claude Code settings file (the natural spelling of a
 *   switch) was "ignored" with a warning, and `--permission-mode bypassPermissions` then ran what the
 *   policy meant to stop. Any value but `false` now turns the mode off, as `"disable"` does;
 * - with `"disable"` in any file, a live session's `setPermissionMode("bypassPermissions")` (an
 *   editor's mode menu over ACP) switched the run into the mode the file refuses: it is refused now,
 *   naming the file;
 * - a Claude Code `sandbox` whose values did not read (`"denyRead": "~/secrets"`, a string for a list)
 *   was dropped whole with a warning — its read denials and allow-list with it — and the run went
 *   on: such a file now stops the run naming it, as a malformed deny rule does;
 * - telemetry to the team's collector from the bin: no page said how (`telemetry` needs a tracer,
 *   which only code gives), and `env.CLAUDE_CODE_ENABLE_TELEMETRY` was answered "ubiquity has no
 *   such setting". docs/guide/telemetry.md has "From the runner", run here through the bin. Its
 *   first draft shut the tracer provider down on `kernel.dispose`, as one closes an SDK: every span
 *   was lost, silently, since the runner disposes a kernel it built to read the config before the
 *   run's own. The recipe flushes instead, and the plugin docs' hooks table says why;
 * - no credential process: Claude Code's `apiKeyHelper` was "ignored", and the only way left was the
 *   key in the environment of every developer's shell. It is run now (the user's own file, the
 *   caller's settings or a managed policy; a project's is named and not run), once per process,
 *   its key the run's `apiKey`: sent to the provider, masked everywhere, never in a command's env.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel, startProviderServer, type FakeProviderServer } from "../../src/testing/index";
import { installPacked, removePackedDirs, tempDir } from "../helpers/packed";
import { requireDist, streamMessages } from "../helpers/project";
import { attacker, toolResults, type AttackCall } from "../security/scripted-attacker";
import { inbox } from "../live/helpers";
import { execFile } from "node:child_process";

let app: string | undefined;
/** The platform engineer's trial project: the packed package, nothing else. */
function project(): string {
  if (app) return app;
  app = tempDir("ubiquity-trial-ze-");
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "rollout", private: true, type: "module" }));
  installPacked(app);
  return app;
}

/**
 * A developer's own config (`--config`) that reads `managed` as the managed policy file: the settings
 * plugin's `managedFiles` adds to the system's files, as a policy kept elsewhere would be.
 */
function policyConfig(dir: string, managed: string): string {
  const file = join(dir, "policy.config.mjs");
  writeFileSync(
    file,
    `import settings from "ubiquity/plugins/settings";\nexport default { plugins: [settings({ managedFiles: [${JSON.stringify(managed)}] })] };\n`,
  );
  return file;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let server: FakeProviderServer | undefined;
/** The bin of the packed package in `cwd`, its model the attacker asking for `calls` in turn. */
async function attack(
  calls: AttackCall[],
  args: string[],
  cwd: string,
  home: string,
  env: Record<string, string | undefined> = { OPENAI_API_KEY: "sk-trial-ze" },
): Promise<Run> {
  await server?.close();
  server = await startProviderServer(attacker(calls));
  const bin = join(project(), "node_modules", "ubiquity", "bin", "ubiquity.mjs");
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, "run", "--model", "openai:gpt-5", "--output-format", "stream-json", ...args, "do the task"],
      {
        cwd,
        // The developer's shell, with the key only where the test gives one.
        env: Object.fromEntries(
          Object.entries({
            ...process.env,
            DEBUG: "",
            NO_COLOR: "1",
            UBIQUITY_TRUST: "",
            HOME: home,
            OPENAI_API_KEY: undefined,
            OPENAI_BASE_URL: server!.baseURL,
            ...env,
          }).filter(([, v]) => v !== undefined),
        ),
        timeout: 120_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end("");
  });
}

beforeAll(() => requireDist());
afterAll(async () => {
  await server?.close();
  removePackedDirs();
});

describe("a managed policy file", () => {
  it("holds against the developer's flags: deny rules, no bypassPermissions, the sandbox on, its hooks and audit log", async () => {
    const dir = project();
    const home = tempDir("ubiquity-trial-ze-home-");
    const admin = tempDir("ubiquity-trial-ze-admin-");
    const audit = tempDir("ubiquity-trial-ze-audit-");
    // The organisation's guard: a PreToolUse hook that blocks `git push` and logs every call.
    const guard = join(admin, "guard.sh");
    writeFileSync(
      guard,
      `#!/bin/sh\ninput=$(cat)\nprintf '%s\\n' "$input" >> ${JSON.stringify(join(audit, "audit.log"))}\ncase "$input" in *'git push'*) echo "blocked by policy" >&2; exit 2;; esac\nexit 0\n`,
      { mode: 0o755 },
    );
    const managed = join(admin, "managed-settings.json");
    writeFileSync(
      managed,
      JSON.stringify({
        permissions: { deny: ["Bash(touch:*)"], disableBypassPermissionsMode: "disable" },
        sandbox: { enabled: true, filesystem: { allowWrite: [audit] } },
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }] },
      }),
    );
    // The developer's own Claude Code file turns every hook off; their flags ask for everything.
    mkdirSync(join(home, ".claude"));
    writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ disableAllHooks: true }));
    const run = await attack(
      ["touch pwned-deny", "git push origin main; echo x > pwned-hook", "echo audited"],
      [
        "--config",
        policyConfig(dir, managed),
        "--compat",
        "claude",
        "--permission-mode",
        "bypassPermissions",
        "--no-sandbox",
        "--allowedTools",
        "Bash",
        "--settings",
        JSON.stringify({ permissions: { allow: ["Bash"] }, sandbox: false }),
      ],
      dir,
      home,
    );
    expect(run.code, run.stderr).toBe(0);
    const init = streamMessages(run.stdout)[0] as {
      permissionMode: string;
      sandbox: { status: string };
      managedPolicy?: string[];
    };
    // An administrator checks that the policy holds: system/init names it.
    expect(init.managedPolicy).toEqual([managed]);
    expect(init.permissionMode).toBe("default");
    expect(init.sandbox.status).toBe("on");
    const [denied, hooked, echoed] = toolResults(run.stdout);
    expect(denied!.isError).toBe(true);
    expect(existsSync(join(dir, "pwned-deny"))).toBe(false);
    expect(hooked!.isError).toBe(true);
    expect(hooked!.content).toContain("blocked by policy");
    expect(existsSync(join(dir, "pwned-hook"))).toBe(false);
    expect(echoed).toEqual({ content: "audited", isError: false });
    // Every Bash call reached the audit log, the developer's disableAllHooks notwithstanding.
    const logged = readFileSync(join(audit, "audit.log"), "utf8");
    expect(logged).toContain("git push origin main");
    expect(logged).toContain("echo audited");
    // What the policy overruled is said, naming the policy.
    expect(run.stderr).toContain(`${managed}: the managed policy sets the sandbox`);
    expect(run.stderr).toContain(`${managed}: "disableBypassPermissionsMode": "disable" refuses bypassPermissions`);
  });

  it("a trusted clone's settings loosen none of it, and a config without the sandbox plugin stops", async () => {
    const home = tempDir("ubiquity-trial-ze-home-");
    const admin = tempDir("ubiquity-trial-ze-admin-");
    const clone = tempDir("ubiquity-trial-ze-clone-");
    const managed = join(admin, "managed-settings.json");
    writeFileSync(
      managed,
      JSON.stringify({
        permissions: { deny: ["Bash(touch:*)"], disableBypassPermissionsMode: "disable" },
        sandbox: { enabled: true, autoAllowBash: false },
      }),
    );
    // The team's repository, trusted by the developer: its Claude Code file asks for everything.
    mkdirSync(join(clone, ".claude"));
    writeFileSync(
      join(clone, ".claude", "settings.json"),
      JSON.stringify({
        permissions: { allow: ["Bash"], defaultMode: "bypassPermissions" },
        sandbox: { enabled: false },
        disableAllHooks: true,
      }),
    );
    const config = policyConfig(project(), managed);
    const run = await attack(
      ["touch pwned-clone", "echo from-the-clone"],
      ["--config", config, "--compat", "claude", "--trust"],
      clone,
      home,
    );
    expect(run.code, run.stderr).toBe(0);
    const init = streamMessages(run.stdout)[0] as { permissionMode: string; sandbox: { status: string } };
    expect(init.permissionMode).toBe("default");
    expect(init.sandbox.status).toBe("on");
    const [touched, echoed] = toolResults(run.stdout);
    expect(touched!.isError).toBe(true);
    expect(existsSync(join(clone, "pwned-clone"))).toBe(false);
    // The clone's allow rule still allows Bash (a trusted project's rules apply), inside the policy's sandbox.
    expect(echoed).toEqual({ content: "from-the-clone", isError: false });

    // A config that leaves the sandbox out cannot run under a policy that sets it.
    const without = join(project(), "no-sandbox.config.mjs");
    writeFileSync(
      without,
      `${readFileSync(config, "utf8").replace("export default {", 'export default { disable: ["ubiquity:sandbox"],')}`,
    );
    const stopped = await attack(["echo made > pwned-nosandbox.txt"], ["--config", without], clone, home);
    expect(stopped.code, stopped.stderr).toBe(2);
    expect(stopped.stderr).toContain(
      `${managed}: the managed policy sets "sandbox", and the run has no ubiquity:sandbox plugin`,
    );
    expect(existsSync(join(clone, "pwned-nosandbox.txt"))).toBe(false);
  });

  it("stops every run when it says what ubiquity does not read or enforce, naming the file and the key", async () => {
    const dir = project();
    const home = tempDir("ubiquity-trial-ze-home-");
    const admin = tempDir("ubiquity-trial-ze-admin-");
    const managed = join(admin, "managed-settings.json");
    for (const [policy, said] of [
      [{ permisions: { deny: ["Bash(touch:*)"] } }, `"permisions" (did you mean "permissions"?)`],
      [{ allowManagedHooksOnly: true }, `sets "allowManagedHooksOnly", which ubiquity does not enforce`],
      [{ sandbox: { network: { allowManagedDomainsOnly: true } } }, `"sandbox.network.allowManagedDomainsOnly"`],
      // A guard with a typo'd handler type: a warning and the call ran, as any file's would.
      [
        { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "comand", command: "exit 2" }] }] } },
        "the managed policy's hooks: hooks.PreToolUse[0].hooks[0]",
      ],
    ] as const) {
      writeFileSync(managed, JSON.stringify(policy));
      const run = await attack(["touch pwned"], ["--config", policyConfig(dir, managed)], dir, home);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(managed);
      expect(run.stderr).toContain(said);
      expect(existsSync(join(dir, "pwned"))).toBe(false);
    }
  });
});

describe("Claude Code settings files a policy is written in", () => {
  it('"disableBypassPermissionsMode": true keeps bypassPermissions off; a sandbox that does not read stops the run', async () => {
    const dir = project();
    const home = tempDir("ubiquity-trial-ze-home-");
    mkdirSync(join(home, ".claude"));
    const user = join(home, ".claude", "settings.json");
    writeFileSync(
      user,
      JSON.stringify({
        permissions: { disableBypassPermissionsMode: true },
        env: { CLAUDE_CODE_ENABLE_TELEMETRY: "1" },
      }),
    );
    const bypass = await attack(
      ["echo made > pwned-bypass.txt"],
      ["--compat", "claude", "--permission-mode", "bypassPermissions"],
      dir,
      home,
    );
    expect(bypass.code, bypass.stderr).toBe(0);
    expect(toolResults(bypass.stdout)[0]!.isError).toBe(true);
    expect(existsSync(join(dir, "pwned-bypass.txt"))).toBe(false);
    expect(bypass.stderr).toContain(
      'permissions.disableBypassPermissionsMode true (only "disable" is a value: read as "disable")',
    );
    // Claude Code's telemetry switch is named with the way to do it here, not "no such setting".
    expect(bypass.stderr).toContain(
      "env.CLAUDE_CODE_ENABLE_TELEMETRY (Claude Code reads it, ubiquity does not: set telemetry in the config",
    );

    writeFileSync(user, JSON.stringify({ sandbox: { enabled: true, filesystem: { denyRead: "~/secrets" } } }));
    const sandbox = await attack(["echo made > pwned-sandbox.txt"], ["--compat", "claude"], dir, home);
    expect(sandbox.code, sandbox.stderr).toBe(2);
    expect(sandbox.stderr).toContain(user);
    expect(sandbox.stderr).toContain('"sandbox" does not match the sandbox settings');
    expect(existsSync(join(dir, "pwned-sandbox.txt"))).toBe(false);
  });

  it("a live session is refused bypassPermissions when a settings file disables it", async () => {
    const session = summon(inbox(), {
      model: scriptedModel([]),
      persistSession: false,
      settings: { permissions: { disableBypassPermissionsMode: "disable" } },
    });
    await expect(session.setPermissionMode("bypassPermissions")).rejects.toThrow(
      'setPermissionMode: bypassPermissions is refused: the settings option says "disableBypassPermissionsMode": "disable"',
    );
    await session.setPermissionMode("plan");
    session.close();
    for await (const _ of session);
  });
});

describe("telemetry from the runner, to the team's collector", () => {
  it("a config's tracer provider gets every span, flushed when the run ends, with no key or prompt on them", async () => {
    const dir = project();
    const home = tempDir("ubiquity-trial-ze-home-");
    const spans = join(tempDir("ubiquity-trial-ze-collector-"), "spans.jsonl");
    // docs/guide/telemetry.md's "From the runner" config as written, its OTLP exporter swapped for one writing a file.
    const guide = readFileSync(join(dir, "node_modules", "ubiquity", "docs", "guide", "telemetry.md"), "utf8");
    const block = /\*\*From the runner\.\*\*[\s\S]*?```js\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(block, "docs/guide/telemetry.md has no runner config").toBeDefined();
    const fileExporter = `{
  export(spans, done) {
    for (const s of spans) appendFileSync(${JSON.stringify(spans)}, JSON.stringify({ name: s.name, attributes: s.attributes }) + "\\n");
    done({ code: 0 });
  },
  async shutdown() {},
}`;
    const config = join(dir, "telemetry.config.mjs");
    const written = block!
      .replace(/^import \{ OTLPTraceExporter \}.*$/m, 'import { appendFileSync } from "node:fs";')
      .replace("new OTLPTraceExporter()", fileExporter);
    expect(written).not.toContain("OTLPTraceExporter");
    writeFileSync(config, written);
    const run = await attack(["echo from-the-tool"], ["--config", config], dir, home);
    expect(run.code, run.stderr).toBe(0);
    const lines = readFileSync(spans, "utf8");
    const names = lines
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { name: string }).name);
    expect(names).toContain("invoke_agent ubiquity");
    expect(names).toContain("execute_tool Bash");
    expect(lines).not.toContain("sk-trial-ze");
    expect(lines).not.toContain("do the task");
    expect(lines).not.toContain("from-the-tool");
  });
});

describe("the provider's key from an apiKeyHelper, not the environment", () => {
  it("the user's Claude Code apiKeyHelper is run once and its key sent; commands never see it", async () => {
    const dir = project();
    const home = tempDir("ubiquity-trial-ze-home-");
    const admin = tempDir("ubiquity-trial-ze-admin-");
    const helper = join(admin, "get-key.sh");
    const key = "sk-from-the-vault-7f3a9c";
    writeFileSync(helper, `#!/bin/sh\necho run >> ${JSON.stringify(join(admin, "runs"))}\necho ${key}\n`, {
      mode: 0o755,
    });
    mkdirSync(join(home, ".claude"));
    writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ apiKeyHelper: helper }));
    const run = await attack(["env"], ["--compat", "claude", "--allowedTools", "Bash(env)"], dir, home, {});
    expect(run.code, run.stderr).toBe(0);
    expect(server!.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
    expect(readFileSync(join(admin, "runs"), "utf8")).toBe("run\n");
    expect(run.stderr).not.toContain("apiKeyHelper");
    expect(run.stdout).not.toContain(key);
    const [env] = toolResults(run.stdout);
    expect(env!.isError).toBe(false);
    expect(env!.content).toContain("HOME=");
  });
});
