/**
 * What a newcomer's trial (zi, 2026-12-07: a Claude Code power user of a year who switches for a
 * week because Ubiquity "loads everything you already have": the packed package installed globally
 * into a prefix of its own (`npm i -g <tarball> --prefix …`), `alias claude=ubiquity`, their
 * `~/.claude/settings.json` with permissions and hooks (PreToolUse running a `jq` script,
 * PostToolUse a formatter, Stop, Notification, SessionStart, SessionEnd), an output style, a
 * statusLine, personal agents and commands, a project with `.claude/commands/*.md` using
 * `$ARGUMENTS` and `!` lines, a skill, `CLAUDE.md` with an `@import`, `.mcp.json`; scripts calling
 * `claude -p` with the json and stream-json formats and most of its flags; a fake Anthropic server
 * on 127.0.0.1 behind the real `@ai-sdk/anthropic`) met:
 * - `--model anthropic:claude-sonnet-4-5` ended "needs the package @ai-sdk/anthropic, which is not
 *   installed: run `npm i @ai-sdk/anthropic@4`"; run in the project as told, it changed nothing: a
 *   global ubiquity finds a provider package beside it, never in the project. The command named is
 *   now the one for where ubiquity is (`npm i -g @ai-sdk/anthropic@4 --prefix <its prefix>`; npx's
 *   `-p` for npx), with why, and `ubiquity models` shows the same; the models guide says so;
 * - the alias reached their terminal but no script (a script's shell reads no aliases), and a
 *   `claude` wrapper running `ubiquity --compat claude "$@"` broke `claude --version` and `claude
 *   sessions list` (a flag before the command): `--compat` had no variable, as `--message-format`
 *   has UBIQUITY_MESSAGE_FORMAT. UBIQUITY_COMPAT=claude now does it for every run of a shell or
 *   job (a config's own `compat` wins; the folder's files still apply only when it is trusted);
 * - without compat, a run warned that the project's CLAUDE.md "is not read, so its instructions do
 *   not reach the model", and said nothing of `~/.claude/settings.json`, whose deny rules
 *   (`Bash(rm -rf:*)`, `Read(./.env)`) and hooks the user believed in force: the warning now names
 *   it too (only beside the project's: alone it would be in every folder);
 * - their MCP servers, added over the year with `claude mcp add` (kept in `~/.claude.json`: the user
 *   scope's `mcpServers`, the default local scope's under `projects[<folder>]`), did not start, and
 *   nothing said so: the model simply had no GitHub tools. The file stays unread (Claude Code's
 *   state, not settings), but a run under compat claude now names its servers for the folder as not
 *   started, with the ways to bring each (`ubiquity mcp add --scope project`, the config's
 *   `mcpServers`, `--mcp-config`);
 * - a SessionEnd hook's input had `reason: "success"` (the result's subtype) where Claude Code
 *   sends one of clear, logout, prompt_input_exit, other (`other` for `claude -p`): a settings hook
 *   with `"matcher": "other"` never ran, and a script's `jq -r .reason` read another word. The
 *   reason is Claude Code's now, the subtype beside it (`subtype`).
 * What held: permissions and deny rules from `~/.claude/settings.json` (a `Read(./.env)` denial
 * naming the file), the PreToolUse `jq` script's input and its exit 2 block, the PostToolUse
 * formatter on a Write (run in the sandbox), SessionStart's `startup` matcher and its output as
 * context, CLAUDE.md and its `@import`, `~/.claude/CLAUDE.md`, commands with `$1`, `$ARGUMENTS`,
 * `$ARGUMENTS[0]` and `!` lines (an argument that adds a command is refused, not run), a command
 * without `$ARGUMENTS` getting `ARGUMENTS: …`, skills and agents in `init`, `--output-format json`
 * and stream-json in Claude's shape (`.result`, `.session_id`, `.total_cost_usd`, `.num_turns`,
 * `.is_error`), `--input-format stream-json`, `--resume <id>` keeping the id, `--continue`,
 * `--max-turns` (exit 1, `error_max_turns`), `--allowedTools` comma- and space-separated,
 * `--disallowedTools` over it, `--append-system-prompt`, `--add-dir`, `--settings` (file or JSON),
 * `--strict-mcp-config`, `--verbose` keeping stdout clean, exit 2 for an unknown flag.
 * Noticed and left for the team: `outputStyle` and `statusLine` are reported and not applied
 * (documented); in the chat, SessionEnd's reason is `other` too where Claude Code says `clear`
 * (/clear) or `prompt_input_exit` (Ctrl-D); a Notification `permission_prompt` fires under `-p` for a
 * call denied with nobody asked (a desktop notifier pings for a CI run); the `init` line's
 * `apiKeySource` is always "none"; `--continue` in a folder with no session starts one with a
 * warning (Claude Code ends with an error); a `!` line refused for an argument's `; touch …` suggests
 * an allow rule for the whole line, injected command included; a `.env` committed to git reads as
 * modified (` M .env`) to a sandboxed `git status` (the mask), so `git commit -a` there would commit
 * it emptied; PostToolUse's `tool_response` is the text the model read, not Claude Code's object
 * (`.tool_response.filePath` makes jq exit 5; known since claude-parity-2); a user-level place for
 * MCP servers (Claude Code's user scope) does not exist here; the ignored-keys warning for
 * `~/.claude/settings.json` (`model`, `statusLine`, `outputStyle`) comes with every run.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProviderServer, startProviderServer } from "ubiquity/testing";
import { installHint } from "../../plugins/model/load-provider";
import { packedTarball, removePackedDirs, tempDir } from "../helpers/packed";
import { requireDist } from "../helpers/project";

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

let server: FakeProviderServer;
let prefix: string;
let home: string;
let project: string;

/**
 * The fake Anthropic server: a prompt "CALL <tool> <json>" is answered with that call, a tool
 * result with "RESULT: <its text>", anything else with "ECHO: <the prompt's last text>".
 */
function answer(body: { messages?: { content: unknown }[] }) {
  const last = body.messages?.at(-1)?.content;
  const blocks = (typeof last === "string" ? [{ type: "text", text: last }] : (last ?? [])) as {
    type: string;
    text?: string;
    content?: unknown;
  }[];
  const result = blocks.find((b) => b.type === "tool_result");
  if (result)
    return { text: `RESULT: ${typeof result.content === "string" ? result.content : JSON.stringify(result.content)}` };
  const text = blocks.at(-1)?.text ?? "";
  const call = /^CALL (\w+) (\{.*\})$/s.exec(text);
  return call ? { toolCalls: [{ name: call[1]!, input: JSON.parse(call[2]!) }] } : { text: `ECHO: ${text}` };
}

/** What a user types: npm, quiet, from the npm cache where it can. */
function npm(...args: string[]): void {
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], {
    cwd: project,
    stdio: "pipe",
  });
}

/** `claude …` with the alias: the globally installed bin, in the project, as the user's shell has it. */
function claude(args: string[], env: Record<string, string> = {}): Promise<Ended> {
  const child: ChildProcess = spawn(process.execPath, [join(prefix, "bin", "ubiquity"), ...args], {
    cwd: project,
    env: {
      ...process.env,
      HOME: home,
      ANTHROPIC_API_KEY: "sk-ant-trial-zi",
      ANTHROPIC_BASE_URL: server.baseURL,
      UBIQUITY_MODEL: "anthropic:claude-sonnet-4-5",
      NO_COLOR: "1",
      DEBUG: "",
      UBIQUITY_TRUST: "",
      UBIQUITY_COMPAT: "",
      UBIQUITY_MESSAGE_FORMAT: "",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** Claude's provider package, installed where the error said (the first test does it as the user). */
function anthropicInstalled(): void {
  if (!existsSync(join(prefix, "lib", "node_modules", "@ai-sdk", "anthropic")))
    npm("i", "-g", "@ai-sdk/anthropic@4", "--prefix", prefix);
}

beforeAll(async () => {
  requireDist();
  server = await startProviderServer((request) => answer(request.body as { messages?: { content: unknown }[] }));
  home = tempDir("ubiquity-trial-zi-home-");
  project = tempDir("ubiquity-trial-zi-project-");
  prefix = tempDir("ubiquity-trial-zi-prefix-");
  npm("i", "-g", packedTarball(), "--prefix", prefix);

  // The user's own Claude Code setup.
  mkdirSync(join(home, ".claude", "commands"), { recursive: true });
  writeFileSync(
    join(home, ".claude", "settings.json"),
    JSON.stringify({
      permissions: { allow: ["Bash(npm test:*)", "Read", "Grep", "Glob"], deny: ["Read(./.env)", "Bash(rm -rf:*)"] },
      hooks: {
        SessionEnd: [
          {
            matcher: "other",
            hooks: [
              {
                type: "command",
                command:
                  'cat >> "$CLAUDE_PROJECT_DIR/session-end.jsonl"; echo >> "$CLAUDE_PROJECT_DIR/session-end.jsonl"',
              },
            ],
          },
        ],
      },
      statusLine: { type: "command", command: "~/.claude/statusline.sh" },
    }),
  );
  writeFileSync(
    join(home, ".claude", "commands", "standup.md"),
    "---\ndescription: Standup notes\n---\nWrite standup notes for: $ARGUMENTS\n",
  );
  writeFileSync(join(home, ".claude", "CLAUDE.md"), "I like tabs.\n");

  // The project: a CLAUDE.md, a secret, git.
  writeFileSync(join(project, "CLAUDE.md"), "# Shop\nUse semicolons.\n");
  writeFileSync(join(project, ".env"), "STRIPE_KEY=sk_live_trialzi\n");
  writeFileSync(join(project, ".gitignore"), ".env\nsession-end.jsonl\n");
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "shop", private: true }));
  execFileSync("git", ["init", "-q"], { cwd: project });
  chmodSync(project, 0o755);
}, 300_000);

afterAll(async () => {
  await server?.close();
  removePackedDirs();
});

describe("a global install", () => {
  it("a missing provider package names the command for a global ubiquity (npm i -g with its prefix); following it, the run answers", async () => {
    const missing = await claude(["-p", "hello"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`run \`npm i -g @ai-sdk/anthropic@4 --prefix ${prefix}\``);
    expect(missing.stderr).toContain("ubiquity is installed globally");
    expect(missing.stderr).not.toContain("run `npm i @ai-sdk/anthropic@4`");
    // `ubiquity models` shows the same command.
    const models = await claude(["models"]);
    expect(models.stdout).toMatch(
      new RegExp(`anthropic +@ai-sdk/anthropic .*missing: npm i -g @ai-sdk/anthropic@4 --prefix ${prefix}`),
    );

    // What the user does with it.
    anthropicInstalled();
    const run = await claude(["-p", "hello"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("ECHO: hello\n");
  }, 240_000);

  it("the command follows where ubiquity is: npx's cache, a project, a folder named lib that is no npm prefix", () => {
    const spec = { package: "@ai-sdk/anthropic", major: 4 };
    const dist = (root: string) => join(root, "node_modules", "ubiquity", "dist", "chunks");
    expect(installHint(spec, dist("/home/me/.npm/_npx/1a2b3c"))).toBe(
      "npx -p ubiquity -p @ai-sdk/anthropic@4 ubiquity …",
    );
    expect(installHint(spec, dist("/home/me/shop"))).toBe("npm i @ai-sdk/anthropic@4");
    // A project in a folder named lib: no bin/ubiquity beside it, so not a global prefix.
    expect(installHint(spec, dist(join(tempDir("ubiquity-trial-zi-lib-"), "lib")))).toBe("npm i @ai-sdk/anthropic@4");
    expect(installHint(spec, dist(join(prefix, "lib")))).toBe(`npm i -g @ai-sdk/anthropic@4 --prefix ${prefix}`);
  });
});

describe("Claude Code's files for every run", () => {
  it("UBIQUITY_COMPAT=claude reads ~/.claude as --compat claude does: the user's command expands, the user's deny rule holds", async () => {
    anthropicInstalled();
    const env = { UBIQUITY_COMPAT: "claude", UBIQUITY_MESSAGE_FORMAT: "claude" };
    const standup = await claude(["-p", "/standup shipped the cart"], env);
    expect(standup.code).toBe(0);
    expect(standup.stdout).toBe("ECHO: Write standup notes for: shipped the cart\n");
    expect(standup.stderr).not.toContain("is not read");

    const secret = await claude(
      ["-p", "--output-format", "json", `CALL Read ${JSON.stringify({ file_path: join(project, ".env") })}`],
      env,
    );
    const result = JSON.parse(secret.stdout) as { result: string; permission_denials: { tool_name: string }[] };
    expect(result.result).toContain(
      `the rule Read(./.env) in settings (user: ${join(home, ".claude", "settings.json")})`,
    );
    expect(result.permission_denials.map((d) => d.tool_name)).toEqual(["Read"]);
    expect(secret.stdout + secret.stderr).not.toContain("sk_live_trialzi");
  }, 120_000);

  it("the MCP servers `claude mcp add` kept in ~/.claude.json (user scope, local scope of this folder) are named as not started, with the way to bring them", async () => {
    anthropicInstalled();
    const state = join(home, ".claude.json");
    writeFileSync(
      state,
      JSON.stringify({
        numStartups: 412,
        mcpServers: { github: { type: "stdio", command: "github-mcp-server", args: ["stdio"] } },
        projects: {
          [project]: { allowedTools: [], mcpServers: { "shop-db": { command: "db-mcp", args: ["--readonly"] } } },
          "/elsewhere": { mcpServers: { other: { command: "x" } } },
        },
      }),
    );
    try {
      const run = await claude(["-p", "hello"], { UBIQUITY_COMPAT: "claude" });
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        `${state} has MCP servers \`claude mcp add\` recorded (user scope: github; local scope, for this folder: shop-db), which do not start here`,
      );
      expect(run.stderr).toContain("ubiquity mcp add --scope project <name>");
      // Without compat nothing of Claude Code's is read, and the CLAUDE.md warning says so already.
      const plain = await claude(["-p", "hello"]);
      expect(plain.stderr).not.toContain("claude mcp add");
    } finally {
      rmSync(state);
    }
  }, 120_000);

  it("a value UBIQUITY_COMPAT does not know is exit 2 naming the variable", async () => {
    const run = await claude(["-p", "hello"], { UBIQUITY_COMPAT: "claud" });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('UBIQUITY_COMPAT: must name claude, codex (comma-separated), not "claud"');
  }, 60_000);

  it("without compat, the warning about the project's CLAUDE.md names ~/.claude/settings.json, whose rules and hooks do not apply either", async () => {
    anthropicInstalled();
    const run = await claude(["-p", "hello"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `CLAUDE.md is Claude Code's memory file and is not read, so its instructions do not reach the model (nor is ${join(home, ".claude", "settings.json")}: your own permission rules and hooks do not apply either)`,
    );
  }, 60_000);
});

describe("hooks read as Claude Code writes them", () => {
  it("SessionEnd's reason is Claude Code's: a hook matching `other` runs at the end of -p, its input's reason is other, the subtype beside it", async () => {
    anthropicInstalled();
    const log = join(project, "session-end.jsonl");
    writeFileSync(log, "");
    const run = await claude(["-p", "--output-format", "json", "hello"], {
      UBIQUITY_COMPAT: "claude",
      UBIQUITY_MESSAGE_FORMAT: "claude",
    });
    expect(run.code).toBe(0);
    const sessionId = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    const ended = readFileSync(log, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({
      hook_event_name: "SessionEnd",
      reason: "other",
      subtype: "success",
      session_id: sessionId,
    });
  }, 60_000);
});
