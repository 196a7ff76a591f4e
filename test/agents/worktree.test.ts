import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  listCheckpoints,
  rewindFiles,
  summon,
  type Kernel,
  type Message,
  type SummonOptions,
  type Tool,
} from "ubiquity";
import checkpoints from "ubiquity/plugins/checkpoints";
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { scriptedModel, type Script, type ScriptedTurn } from "ubiquity/testing";
import agents from "ubiquity/plugins/agents";
import systemPrompt from "ubiquity/plugins/system-prompt";
import toolRead from "ubiquity/plugins/tool-read";
import toolEdit from "ubiquity/plugins/tool-edit";
import toolWrite from "ubiquity/plugins/tool-write";
import sessions from "ubiquity/plugins/sessions";
import bash from "ubiquity/plugins/tool-bash";
import sandbox from "ubiquity/plugins/sandbox";
import { SKIP } from "../sandbox/helpers";
import { collect, ofType, resultOf } from "../helpers/collect";
import { agentOf, answered } from "./helpers";
import { gate, latest } from "./background-helpers";
import background from "ubiquity/plugins/background";
import hooksPlugin from "ubiquity/plugins/hooks";
import { worktreeFromHook } from "../../plugins/agents/worktree";

let root: string;
let repo: string;
let trees: string;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  }).trim();

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "ubq-worktree-")));
  repo = join(root, "repo");
  trees = join(root, "trees");
  mkdirSync(join(repo, "sub"), { recursive: true });
  writeFileSync(join(repo, "shared.txt"), "base\n");
  writeFileSync(join(repo, "sub", "note.txt"), "note\n");
  git(repo, "init", "-q", "-b", "main");
  git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A");
  git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A plugin registering one tool (the `tools` option would replace Bash's). */
const toolPlugin = (tool: Tool) => ({
  name: `test:${tool.name}`,
  apply: (kernel: Kernel) => void kernel.registries.tools.register(tool.name, tool, `test:${tool.name}`),
});

async function run(script: Script, options: SummonOptions) {
  const model = scriptedModel(script);
  const messages: Message[] = await collect(
    summon("go", {
      model,
      presets: [],
      cwd: repo,
      worktreeDir: trees,
      plugins: [systemPrompt(), agents(), toolRead(), toolEdit(), toolWrite(), background()],
      ...options,
    }),
  );
  return { model, messages, result: resultOf(messages) };
}

/** A worker that reads shared.txt and puts its own line in place of "base". */
const editor =
  (who: string) =>
  (request: LanguageModelV4CallOptions): ScriptedTurn => {
    const step = request.prompt.filter((m) => m.role === "tool").length;
    if (step === 0) return { toolCalls: [{ toolName: "Read", input: { file_path: "shared.txt" } }] };
    if (step === 1)
      return {
        toolCalls: [
          { toolName: "Edit", input: { file_path: "shared.txt", old_string: "base", new_string: `from ${who}` } },
        ],
      };
    return `${who} edited shared.txt`;
  };

const agentCall = (type: string, id: string, extra: Record<string, unknown> = {}) => ({
  toolName: "Agent",
  id,
  input: { subagent_type: type, description: `${type} edit`, prompt: "edit shared.txt", ...extra },
});

const worktreesOf = () =>
  git(repo, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree "))
    .map((l) => l.slice(9));
const branchesOf = () =>
  git(repo, "branch", "--list", "ubiquity/*", "--format=%(refname:short)").split("\n").filter(Boolean);

describe("worktree isolation", () => {
  it("two agents edit the same file without conflict, each in its own worktree on its own branch; the caller is told the branch and the diff", async () => {
    const { messages, result } = await run(
      ({ request }) => {
        const who = agentOf(request);
        if (who) return editor(who)(request);
        return answered(request)
          ? "both done"
          : { toolCalls: [agentCall("a", "c1"), agentCall("b", "c2", { isolation: "worktree" })] };
      },
      // One isolated by its definition, the other by the call.
      {
        agents: {
          a: { description: "d", prompt: "You are A.", isolation: "worktree" },
          b: { description: "d", prompt: "You are B." },
        },
      },
    );
    expect(result.result).toBe("both done");
    const outputs = ofType(messages, "tool_result")
      .filter((m) => m.toolName === "Agent")
      .sort((x, y) => (x.toolUseId < y.toolUseId ? -1 : 1))
      .map((m) => m.output);
    expect(outputs.map((o) => o.isError)).toEqual([false, false]);
    const edits = ofType(messages, "tool_result").filter((m) => m.agentId && m.toolName === "Edit");
    expect(edits.map((m) => m.output.isError)).toEqual([false, false]);

    // The caller's tree is untouched.
    expect(readFileSync(join(repo, "shared.txt"), "utf8")).toBe("base\n");
    expect(git(repo, "status", "--porcelain")).toBe("");
    // Each agent's edit is in its own worktree, on its own branch, under worktreeDir.
    const found = outputs.map((o, i) => {
      const who = ["A", "B"][i]!;
      expect(o.content).toMatch(
        new RegExp(`^${who} edited shared\\.txt\\n\\nWorktree: branch ubiquity/agent-[0-9a-f]{8} at `),
      );
      expect(o.content).toMatch(
        /Changes against the base:\n shared\.txt \| 2 \+-\n 1 file changed, 1 insertion\(\+\), 1 deletion\(-\)/,
      );
      const meta = o.metadata!.worktree as { path: string; branch: string; base: string };
      expect(meta.path.startsWith(`${trees}/repo-`)).toBe(true);
      expect(readFileSync(join(meta.path, "shared.txt"), "utf8")).toBe(`from ${who}\n`);
      expect(git(meta.path, "rev-parse", "--abbrev-ref", "HEAD")).toBe(meta.branch);
      expect(meta.base).toBe(git(repo, "rev-parse", "HEAD"));
      return meta;
    });
    expect(found[0]!.branch).not.toBe(found[1]!.branch);
    expect(worktreesOf().sort()).toEqual([repo, found[0]!.path, found[1]!.path].sort());
    // Each branch merges on its own: the two edits conflict only when both are brought in, which is the caller's choice.
    git(found[0]!.path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "A");
    git(repo, "merge", "-q", "--ff-only", found[0]!.branch);
    expect(readFileSync(join(repo, "shared.txt"), "utf8")).toBe("from A\n");
  });

  it("removes an unchanged worktree and its branch", async () => {
    const { messages } = await run(
      ({ request }) => {
        if (agentOf(request))
          return answered(request)
            ? "looked only"
            : { toolCalls: [{ toolName: "Read", input: { file_path: "shared.txt" } }] };
        return answered(request) ? "done" : { toolCalls: [agentCall("a", "c1")] };
      },
      { agents: { a: { description: "d", prompt: "You are A.", isolation: "worktree" } } },
    );
    const output = ofType(messages, "tool_result").find((m) => m.toolName === "Agent" && !m.agentId)!.output;
    expect(output.content).toMatch(
      /^looked only\n\nWorktree: no changes; its worktree and branch ubiquity\/agent-[0-9a-f]{8} were removed\.$/,
    );
    expect(worktreesOf()).toEqual([repo]);
    expect(branchesOf()).toEqual([]);
    expect(existsSync((output.metadata!.worktree as { path: string }).path)).toBe(false);
  });

  it("a background agent in a worktree: from a subfolder, with a new file; its end carries the reply and the diff; the session records its work", async () => {
    const sessionDir = join(root, "sessions");
    const { model, messages, result } = await run(
      ({ request }) => {
        if (agentOf(request))
          return answered(request)
            ? "wrote made.txt"
            : { toolCalls: [{ toolName: "Write", input: { file_path: "made.txt", content: "new\n" } }] };
        if (latest(request).includes("Background work ended")) return "done";
        return answered(request)
          ? "waiting"
          : { toolCalls: [agentCall("a", "c1", { run_in_background: true, name: "maker" })] };
      },
      {
        cwd: join(repo, "sub"),
        agentIsolation: "worktree",
        agents: { a: { description: "d", prompt: "You are A." } },
        plugins: [systemPrompt(), agents(), toolWrite(), background(), sessions()],
        sessionDir,
      },
    );
    expect(result.result).toBe("done");
    expect(ofType(messages, "tool_result").find((m) => m.toolName === "Agent")!.output.content).toMatch(
      /^Started agent-1 \(named "maker"\): agent a works on "a edit" in the background, in the worktree \S+\/agent-[0-9a-f]{8} on branch ubiquity\/agent-[0-9a-f]{8}\.\n/,
    );
    const note = latest(model.requests.at(-1)!);
    expect(note).toMatch(
      /agent-1 \(agent maker: a — a edit\) completed\. Its reply:\nwrote made\.txt\n\nWorktree: branch (ubiquity\/agent-[0-9a-f]{8}) at (\S+) \(from [0-9a-f]{12}; uncommitted changes in the worktree\)\.\nChanges against the base:\n sub\/made\.txt \| 1 \+\n/,
    );
    const path = /Worktree: branch \S+ at (\S+) /.exec(note)![1]!;
    // The agent worked in the same subfolder of its worktree.
    expect(readFileSync(join(path, "sub", "made.txt"), "utf8")).toBe("new\n");
    expect(existsSync(join(repo, "sub", "made.txt"))).toBe(false);
    // The session's transcript holds the agent's work (its messages share the session).
    const transcript = execFileSync("sh", ["-c", `cat $(find "${sessionDir}" -name '*.jsonl')`], { encoding: "utf8" });
    expect(transcript).toContain("wrote made.txt");
    expect(transcript).toMatch(/"toolName":"Write"/);
  });

  it("checkpoints work inside a worktree: its agent's edits are checkpointed there, in the session's store, and rewind restores the worktree", async () => {
    const sessionDir = join(root, "sessions");
    const checkpointDir = join(root, "checkpoints");
    const { messages, result } = await run(
      ({ request }) => {
        const who = agentOf(request);
        if (who) return editor(who)(request);
        return answered(request) ? "done" : { toolCalls: [agentCall("a", "c1")] };
      },
      {
        agents: { a: { description: "d", prompt: "You are A.", isolation: "worktree" } },
        plugins: [systemPrompt(), agents(), toolRead(), toolEdit(), sessions(), checkpoints()],
        sessionDir,
        checkpoints: { dir: checkpointDir },
      },
    );
    expect(result.isError, result.result).toBe(false);
    const tree = (
      ofType(messages, "tool_result").find((m) => m.toolName === "Agent")!.output.metadata!.worktree as { path: string }
    ).path;
    expect(readFileSync(join(tree, "shared.txt"), "utf8")).toBe("from A\n");
    const query = { cwd: repo, sessionDir, checkpointDir };
    const list = await listCheckpoints(result.sessionId, query);
    // Tied to the agent's own turn that edited, covering its worktree.
    const editTurn = ofType(messages, "assistant").find(
      (m) => m.agentId && m.content.some((b) => b.type === "tool_call" && b.toolName === "Edit"),
    )!;
    expect(list.map((c) => [c.messageUuid, c.roots])).toEqual([[editTurn.uuid, [tree]]]);
    await rewindFiles(result.sessionId, editTurn.uuid, query);
    expect(readFileSync(join(tree, "shared.txt"), "utf8")).toBe("base\n");
    expect(readFileSync(join(repo, "shared.txt"), "utf8")).toBe("base\n");
  });

  it.skipIf(SKIP)(
    "with the sandbox on, a worktree agent's commands write its worktree; the caller's commands still cannot",
    async () => {
      const g = gate();
      let tree = "";
      const { messages, result } = await run(
        ({ request }) => {
          if (agentOf(request)) {
            const step = request.prompt.filter((m) => m.role === "tool").length;
            if (step === 0) return { toolCalls: [{ toolName: "Gate", input: {} }] };
            if (step === 1)
              return { toolCalls: [{ toolName: "Bash", input: { command: "echo from-agent > shared.txt && pwd" } }] };
            return "agent wrote";
          }
          const said = latest(request);
          if (said.includes("Background work ended")) return "done";
          if (said.includes("tried")) {
            g.open();
            return "waiting";
          }
          if (answered(request)) {
            tree = readdirSync(join(trees, readdirSync(trees)[0]!)).map((d) =>
              join(trees, readdirSync(trees)[0]!, d),
            )[0]!;
            return {
              toolCalls: [
                { toolName: "Bash", input: { command: `echo hack > '${tree}/shared.txt' || true; echo tried` } },
              ],
            };
          }
          return { toolCalls: [agentCall("a", "c1", { run_in_background: true, isolation: "worktree" })] };
        },
        {
          agents: { a: { description: "d", prompt: "You are A." } },
          plugins: [systemPrompt(), agents(), bash(), sandbox(), background(), toolPlugin(g.tool)],
        },
      );
      expect(result.result).toBe("done");
      const bashes = ofType(messages, "tool_result").filter((m) => m.toolName === "Bash");
      const caller = bashes.find((m) => !m.agentId)!;
      const agent = bashes.find((m) => m.agentId)!;
      expect(caller.output.metadata).toMatchObject({ contained: true });
      expect(caller.output.content).toMatch(/(Read-only file system|No such file or directory)[\s\S]*tried/);
      expect(agent.output).toMatchObject({ isError: false, content: tree, metadata: { contained: true } });
      expect(readFileSync(join(tree, "shared.txt"), "utf8")).toBe("from-agent\n");
      expect(readFileSync(join(repo, "shared.txt"), "utf8")).toBe("base\n");
    },
  );

  it("a background agent refused at a cap leaves no worktree behind", async () => {
    const { messages } = await run(
      ({ request }) => {
        if (agentOf(request)) return "first done";
        const said = latest(request);
        if (said.includes("maxTotal")) return "done";
        // The first (not isolated) uses the session's one task; the second, isolated, is refused.
        if (said.includes("Background work ended"))
          return { toolCalls: [agentCall("a", "c2", { run_in_background: true, isolation: "worktree" })] };
        return answered(request) ? "waiting" : { toolCalls: [agentCall("a", "c1", { run_in_background: true })] };
      },
      {
        agents: { a: { description: "d", prompt: "You are A." } },
        plugins: [systemPrompt(), agents(), background()],
        backgroundTasks: { maxTotal: 1 },
      },
    );
    expect(ofType(messages, "tool_result").find((m) => m.toolUseId === "c2")!.output).toMatchObject({
      isError: true,
      content: expect.stringContaining("maxTotal: 1"),
    });
    expect(worktreesOf()).toEqual([repo]);
    expect(branchesOf()).toEqual([]);
  });

  it("through the default preset: two agents edit the same file and commit on their branches", async () => {
    const model = scriptedModel(({ request }) => {
      const who = agentOf(request);
      if (!who) return answered(request) ? "all done" : { toolCalls: [agentCall("a", "c1"), agentCall("b", "c2")] };
      const step = request.prompt.filter((m) => m.role === "tool").length;
      if (step < 2) return editor(who)(request);
      if (step === 2)
        return {
          toolCalls: [
            {
              toolName: "Bash",
              input: {
                command: `git -c user.name=${who} -c user.email=${who}@t commit -qam "${who} edit" && echo committed`,
              },
            },
          ],
        };
      return `${who} committed`;
    });
    const messages: Message[] = await collect(
      summon("go", {
        model,
        cwd: repo,
        worktreeDir: trees,
        permissionMode: "bypassPermissions",
        agentIsolation: "worktree",
        agents: { a: { description: "d", prompt: "You are A." }, b: { description: "d", prompt: "You are B." } },
        persistSession: false,
        persistTodos: false,
        marketPricing: false,
      }),
    );
    expect(resultOf(messages)).toMatchObject({ isError: false, result: "all done" });
    const bashes = ofType(messages, "tool_result").filter((m) => m.toolName === "Bash");
    // On a mismatch, every tool result of the run says where it went another way.
    const trail = ofType(messages, "tool_result")
      .map((m) => `${m.toolName}: ${String(m.output.content).slice(0, 300)}`)
      .join("\n");
    expect(
      bashes.map((m) => m.output.content),
      trail,
    ).toEqual(["committed", "committed"]);
    const reports = ofType(messages, "tool_result")
      .filter((m) => m.toolName === "Agent")
      .sort((x, y) => (x.toolUseId < y.toolUseId ? -1 : 1));
    for (const [i, who] of ["A", "B"].entries()) {
      const output = reports[i]!.output;
      expect(output.content).toMatch(
        new RegExp(
          `^${who} committed\\n\\nWorktree: branch ubiquity/agent-[0-9a-f]{8} at \\S+ \\(from [0-9a-f]{12}; 1 commit by the agent\\)\\.\\nChanges against the base:\\n shared\\.txt \\| 2 \\+-`,
        ),
      );
      const { branch } = output.metadata!.worktree as { branch: string };
      expect(git(repo, "show", `${branch}:shared.txt`)).toBe(`from ${who}`);
    }
    expect(readFileSync(join(repo, "shared.txt"), "utf8")).toBe("base\n");
    expect(git(repo, "status", "--porcelain")).toBe("");
  });

  it("outside a git repository, the agent is refused, saying why", async () => {
    const plain = join(root, "plain");
    mkdirSync(plain);
    const { messages } = await run(
      ({ request }) => (answered(request) ? "done" : { toolCalls: [agentCall("a", "c1", { isolation: "worktree" })] }),
      {
        cwd: plain,
        agents: { a: { description: "d", prompt: "You are A." } },
      },
    );
    expect(ofType(messages, "tool_result")[0]!.output).toMatchObject({
      isError: true,
      content: `Agent a could not start: worktree isolation needs a git repository, and ${plain} is not in one: run the agent without isolation, or run git init`,
    });
  });
});

describe("WorktreeCreate and WorktreeRemove hooks (Claude Code's: another version control's working copy)", () => {
  /** An isolated agent `a` that edits shared.txt, with `hooks`; the caller's Agent result. */
  async function isolated(hooks: Record<string, unknown>) {
    const { messages } = await run(
      ({ request }) => {
        const who = agentOf(request);
        if (who) return editor(who)(request);
        return answered(request) ? "done" : { toolCalls: [agentCall("a", "c1")] };
      },
      {
        agents: { a: { description: "d", prompt: "You are A.", isolation: "worktree" } },
        plugins: [systemPrompt(), agents(), toolRead(), toolEdit(), toolWrite(), background(), hooksPlugin()],
        hooks,
      } as SummonOptions,
    );
    return ofType(messages, "tool_result").find((m) => m.toolName === "Agent" && !m.agentId)!.output;
  }
  const command = (text: string) => [{ hooks: [{ type: "command", command: text }] }];

  it("the hook makes the working copy (its last line is the path) and the agent works there; WorktreeRemove is told to remove it", async () => {
    const copies = join(root, "copies");
    const log = join(root, "hooks.jsonl");
    // A copy made with cp, not git: what an SVN or Mercurial checkout would be.
    const made = `(cat; echo) >> ${log}; D=${copies}/$(sed -n 's/.*"name":"\\([a-z0-9-]*\\)".*/\\1/p' ${log} | tail -1); mkdir -p $D && cp ${repo}/shared.txt $D/ && echo "copied" && echo $D`;
    const output = await isolated({
      WorktreeCreate: command(made),
      WorktreeRemove: command(`(cat; echo) >> ${log}`),
    });
    expect(output.isError).toBe(false);
    const inputs = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, string>);
    expect(inputs[0]).toMatchObject({
      hook_event_name: "WorktreeCreate",
      name: expect.stringMatching(/^agent-[0-9a-f]{8}$/),
    });
    const path = join(copies, inputs[0]!.name!);
    expect(inputs[1]).toMatchObject({ hook_event_name: "WorktreeRemove", worktree_path: path });
    // The agent edited the hook's copy; the caller's tree and git's worktrees are untouched.
    expect(readFileSync(join(path, "shared.txt"), "utf8")).toBe("from A\n");
    expect(readFileSync(join(repo, "shared.txt"), "utf8")).toBe("base\n");
    expect(worktreesOf()).toEqual([repo]);
    expect(output.content).toContain(
      `Worktree: ${path} (made by the WorktreeCreate hook); the WorktreeRemove hook was asked to remove it.`,
    );
  });

  it("a path that is not a folder of its own is refused, and the agent does not start", async () => {
    for (const [printed, why] of [
      ["", "printed no path"],
      ["relative/dir", "is not an absolute path"],
      [join(root, "missing"), "which does not exist"],
      [repo, "is the agent's caller's folder"],
      [root, "holds the agent's caller's folder"],
      ["/", "holds the agent's caller's folder"],
      [join(repo, ".git"), "it is a .git folder"],
      [join(repo, ".git", "hooks"), "inside a .git folder"],
    ] as const) {
      const output = await isolated({ WorktreeCreate: command(`cat > /dev/null; echo '${printed}'`) });
      expect(output.isError, printed).toBe(true);
      expect(output.content).toContain(`Agent a could not start: the WorktreeCreate hook`);
      expect(output.content).toContain(why);
    }
    // Nothing ran in the caller's tree.
    expect(readFileSync(join(repo, "shared.txt"), "utf8")).toBe("base\n");
  });

  it("a home dot-folder or ~/.ssh itself is refused; a folder inside one is the worktree's own (Claude Code's ~/.claude/worktrees/<name>)", () => {
    const home = join(root, "home");
    for (const dir of [".config", ".ssh", ".claude/worktrees/agent-1"]) mkdirSync(join(home, dir), { recursive: true });
    expect(() => worktreeFromHook(join(home, ".config"), repo, home)).toThrow(/a dot-folder of the home folder/);
    expect(() => worktreeFromHook(join(home, ".ssh"), repo, home)).toThrow(/it is a \.ssh folder/);
    const inside = join(home, ".claude", "worktrees", "agent-1");
    expect(worktreeFromHook(inside, repo, home)).toMatchObject({ path: inside, cwd: inside, byHook: true });
  });

  it("a failing hook (exit 2) stops the agent with its words; a git worktree that goes is announced to WorktreeRemove", async () => {
    const failed = await isolated({ WorktreeCreate: command("cat > /dev/null; echo 'no svn here' >&2; exit 2") });
    expect(failed.isError).toBe(true);
    expect(failed.content).toContain("the WorktreeCreate hook failed: no svn here");

    const log = join(root, "removed.jsonl");
    const { messages } = await run(
      ({ request }) => {
        if (agentOf(request)) return "looked only";
        return answered(request) ? "done" : { toolCalls: [agentCall("a", "c1")] };
      },
      {
        agents: { a: { description: "d", prompt: "You are A.", isolation: "worktree" } },
        plugins: [systemPrompt(), agents(), hooksPlugin()],
        hooks: { WorktreeRemove: command(`(cat; echo) >> ${log}`) },
      } as SummonOptions,
    );
    const output = ofType(messages, "tool_result").find((m) => m.toolName === "Agent")!.output;
    const removed = JSON.parse(readFileSync(log, "utf8").trim()) as Record<string, string>;
    expect(removed.worktree_path).toBe((output.metadata!.worktree as { path: string }).path);
    expect(existsSync(removed.worktree_path!)).toBe(false);
  });
});
