/**
 * Red team 2026-12-05 (c): what landed on 2026-12-05, attacked as a stranger would. Each finding's
 * test failed before its fix. Frontmatter read by field lines (and camelKeys) and
 * `ubiquity plugin add <marketplace> <plugin>` with git-subdir sources.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseAgentFile } from "../../plugins/agents/parse";
import { splitFrontmatter } from "../../plugins/_kits/sources/frontmatter";
import { commandsCommands } from "../../plugins/commands/cli";
import { runCommandHook } from "../../plugins/hooks/command";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import hooksPlugin from "ubiquity/plugins/hooks";
import { collect, ofType } from "../helpers/collect";
import { recordingLogger, waitingTool } from "../helpers/hook-log";
import { createServer } from "node:net";
import { outputs, runBash, sandboxPlace, SKIP } from "../sandbox/helpers";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome, writeTree } from "../helpers/temp-home";

const temp = tempDirs();
const home = tempHome();

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("frontmatter read by field lines never loses a restriction (F1-F3)", () => {
  it("F1: a field written twice is refused, not read as its last line (strict YAML refuses it too)", () => {
    // The first disallowedTools is the restriction the author meant; the last-wins reading dropped it.
    const text =
      '---\nname: a\ndisallowedTools: Bash\ndescription: Use it when\nuser: "x"\ndisallowedTools: Read\n---\nbody\n';
    const parsed = parseAgentFile(text, "a");
    expect(parsed.ok).toBe(false);
  });

  it("F2: two spellings of one field (disallowed-tools and disallowedTools) are refused, not folded into the last", () => {
    const text = "---\nname: a\ndescription: d\ndisallowed-tools: Bash\ndisallowedTools: Read\n---\nbody\n";
    const parsed = parseAgentFile(text, "a");
    expect(parsed.ok).toBe(false);
    expect(splitFrontmatter("---\ntools: Read\nTools: Bash\n---\n").ok).toBe(false);
  });

  it("F3: a permission field swallowed into a description (indented or capitalised) refuses the file", () => {
    for (const line of [" disallowedTools: Bash", "  permissionMode: default", "Disallowed-Tools: Bash"]) {
      const text = `---\nname: a\ndescription: Use it when\nuser: "x"\n${line}\n---\nbody\n`;
      const split = splitFrontmatter(text);
      expect(split.ok, line).toBe(false);
    }
    // Claude Code's agent examples (`Context:`, `user:` lines) are still read.
    const example =
      '---\nname: a\ndescription: Use it when. Examples:\n<example>\nContext: the user asks\nuser: "review"\n</example>\ntools: Read\n---\nbody\n';
    const split = splitFrontmatter(example);
    expect(split.ok).toBe(true);
    expect(split.ok && split.data.tools).toBe("Read");
    // And a block field's nested structure is not taken for prose.
    const hooks = '---\ndescription: a: b\nuser: "x"\nhooks:\n  PreToolUse:\n    - matcher: Bash\n---\nbody\n';
    expect(splitFrontmatter(hooks).ok).toBe(true);
  });
});

describe("ubiquity plugin add with git-subdir sources (F4)", () => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });
  function repo(name: string, fill: (dir: string) => void): string {
    const root = realpathSync(temp("ubq-git-"));
    const work = join(root, "work");
    git(root, "init", "-q", "-b", "main", work);
    fill(work);
    git(work, "add", "-A");
    git(work, "commit", "-q", "-m", "plugin");
    git(root, "clone", "-q", "--bare", work, join(root, `${name}.git`));
    return `file://${join(root, `${name}.git`)}`;
  }
  const sink = { stdout: () => {}, stderr: () => {} };
  const run = (positionals: string[]) =>
    commandsCommands.plugin!.run({ positionals, flags: {} } as never, sink as never);
  const market = (entries: unknown[]) =>
    repo("market", (dir) =>
      writeTree(dir, { ".claude-plugin/marketplace.json": JSON.stringify({ name: "market", plugins: entries }) }),
    );

  it("F4: a path that is a symlink in the repository leading out of it is refused, and leaves no clone", async () => {
    // A plugin folder outside the repository (another plugin the user has, any folder of theirs).
    const outside = realpathSync(temp("ubq-outside-"));
    writeTree(outside, {
      ".claude-plugin/plugin.json": JSON.stringify({ name: "outside" }),
      "commands/x.md": "---\ndescription: x\n---\nx\n",
    });
    const url = repo("skills", (dir) => {
      mkdirSync(join(dir, "plugins"));
      symlinkSync(outside, join(dir, "plugins", "evil"));
    });
    const marketUrl = market([{ name: "evil", source: { source: "git-subdir", url, path: "plugins/evil" } }]);
    await expect(run(["add", marketUrl, "evil"])).rejects.toThrow(/outside its repository/);
    expect(existsSync(join(home(), ".ubiquity", "plugins", "skills"))).toBe(false);
  });
});

describe('a command hook that detaches ({"async": true}) (F5)', () => {
  it("F5: printing without end after detaching neither ends the process nor loses its report", async () => {
    const cwd = realpathSync(temp("ubq-rt3-hook-"));
    const warnings: string[] = [];
    const logger = { debug: () => {}, info: () => {}, warn: (t: string) => void warnings.push(t), error: () => {} };
    // 600 MB: more than V8's longest string (2^29 - 24 characters), which the kept output once became.
    const command = `echo '{"async": true, "asyncTimeout": 600000}'; head -c 600000000 /dev/zero | tr '\\0' a; echo REPORT-7 >&2; exit 2`;
    const report = new Promise<unknown>((resolve) => {
      void runCommandHook(
        { type: "command", command, timeout: 600 },
        { hookEventName: "PostToolUse", sessionId: "s", cwd, toolName: "Bash", toolInput: {}, extra: {} } as never,
        { cwd, signal: new AbortController().signal, logger: logger as never },
        resolve,
      ).then((now) => expect(now).toBeUndefined());
    });
    expect(await report).toEqual({ decision: "block", reason: "REPORT-7" });
  }, 120_000);
});

describe("an asyncRewake hook's note to the model (F6)", () => {
  it("F6: a key in the hook's command (named in the note's heading) is masked when the note comes with the next prompt", async () => {
    const cwd = realpathSync(temp("ubq-rt3-rewake-"));
    const key = "sk-ant-rt3-SECRET-77e0a1";
    vi.stubEnv("ANTHROPIC_API_KEY", key);
    const { logger, heard } = recordingLogger();
    const queued = heard("a background hook reported");
    async function* input() {
      yield "first";
      await queued;
      yield "second";
    }
    const model = scriptedModel(["one", "two"]);
    await collect(
      summon(input(), {
        presets: [],
        plugins: [hooksPlugin()],
        model,
        cwd,
        logger,
        hooks: {
          UserPromptSubmit: [
            {
              hooks: [
                {
                  type: "command",
                  command: `cat >/dev/null; : x-api-key ${key}; echo found-7 >&2; exit 2`,
                  asyncRewake: true,
                },
              ],
            },
          ],
        },
      }),
    );
    const asked = JSON.stringify(model.requests.map((r) => r.prompt));
    expect(asked).toContain("found-7");
    expect(asked).not.toContain(key);
  });

  it("F6: a key in the hook's command (named in the note's heading) is masked, as its report is", async () => {
    const cwd = realpathSync(temp("ubq-rt3-rewake-"));
    const key = "sk-ant-rt3-SECRET-8d1f2c";
    vi.stubEnv("ANTHROPIC_API_KEY", key);
    const { logger, heard } = recordingLogger();
    const queued = heard("a background hook reported");
    const model = scriptedModel([
      { toolCalls: [{ toolName: "First", input: {} }] },
      { toolCalls: [{ toolName: "Second", input: {} }] },
      "done",
    ]);
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [hooksPlugin()],
        model,
        cwd,
        logger,
        tools: [waitingTool("First"), waitingTool("Second", queued)],
        hooks: {
          PostToolUse: [
            {
              matcher: "First",
              hooks: [
                {
                  type: "command",
                  command: `cat >/dev/null; : x-api-key ${key}; echo found >&2; exit 2`,
                  asyncRewake: true,
                },
              ],
            },
          ],
        },
      }),
    );
    const results = ofType(messages, "tool_result").map((m) => String(m.output.content));
    expect(results[1]).toContain("found");
    expect(JSON.stringify(model.requests)).not.toContain(key);
  });
});

describe.skipIf(SKIP)("the sandbox's socket filter against other programs (no finding)", () => {
  const place = sandboxPlace();
  it("socat, nc -U, node's net.connect, perl, python's abstract socket and a sandboxed command hook reach no host socket", async () => {
    const ws = place.ws();
    const hits: string[] = [];
    const server = createServer((s) => {
      hits.push("connected");
      s.end("HELLO-FROM-HOST\n");
    });
    await new Promise<void>((r) => server.listen(join(ws, "dev.sock"), r));
    const abstract = createServer((s) => {
      hits.push("abstract");
      s.end("HELLO\n");
    });
    // One name per process: abstract sockets are machine-wide, and another run of this file may hold one.
    const name = `ubq-rt3-abstract-${process.pid}`;
    await new Promise<void>((r) => abstract.listen(`\0${name}`, r));
    const commands = [
      "socat - UNIX-CONNECT:dev.sock </dev/null",
      "nc -U dev.sock </dev/null",
      `node -e "require('net').connect('dev.sock').on('data',d=>console.log(String(d))).on('error',e=>console.log(e.code))"`,
      `perl -MIO::Socket::UNIX -e 'my $s=IO::Socket::UNIX->new(Peer=>"dev.sock") or die "no: $!"; print <$s>'`,
      `python3 -c "import socket;s=socket.socket(socket.AF_UNIX);s.connect(b'\\0${name}');print(s.recv(9))"`,
      `python3 -c "import socket;a,b=socket.socketpair();b.send(b'x');print(a.recv(1))"`,
    ];
    try {
      const out = outputs(
        await runBash(commands, {
          cwd: ws,
          sandbox: true,
          permissionMode: "bypassPermissions",
          hooks: {
            SessionStart: [
              {
                hooks: [
                  {
                    type: "command",
                    command: `python3 -c "import socket;s=socket.socket(socket.AF_UNIX);s.connect('dev.sock')" 2>hook-err.txt; echo '{"async": true}'; socat - UNIX-CONNECT:dev.sock </dev/null`,
                  },
                ],
              },
            ],
          },
        }),
      );
      for (const id of ["c0", "c1", "c2", "c3", "c4"]) expect(out[id]!.content, id).not.toContain("HELLO");
      // A connected pair still works.
      expect(out.c5!.content).toContain("b'x'");
    } finally {
      server.close();
      abstract.close();
    }
    expect(hits).toEqual([]);
  }, 60_000);
});

describe("a detached hook after its summon() run (no finding)", () => {
  // A hook that answered {"async": true} ends with its summon() run (`ubiquity run -p` kills it at exit too,
  // checked by hand with a marker file): pinned here with its pid.
  it("the run's end ends the hooks it detached", async () => {
    const cwd = realpathSync(temp("ubq-rt3-outlive-"));
    const command = `echo $$ > hook.pid; echo '{"async": true, "asyncTimeout": 60000}'; while [ ! -f release ]; do sleep 0.05; done`;
    try {
      await collect(
        summon("go", {
          presets: [],
          plugins: [hooksPlugin()],
          model: scriptedModel(["ok"]),
          cwd,
          hooks: { SessionStart: [{ hooks: [{ type: "command", command, timeout: 60 }] }] },
        }),
      );
      const pid = Number(readFileSync(join(cwd, "hook.pid"), "utf8"));
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      for (const end = Date.now() + 120_000; alive() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
      expect(alive()).toBe(false);
    } finally {
      writeFileSync(join(cwd, "release"), "");
    }
  });
});
