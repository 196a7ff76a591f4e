/**
 * `ubiquity permissions check [--allow R] [--deny R] [--ask R] [--mode M] "<command>"`: test
 * rules against a command (or, with --tool, a path or other content) and see the verdict, the
 * deciding rule and every candidate the command was split into. The plugin's `permissions`
 * command (cli.ts); it parses its own flags because rule flags repeat.
 * Exit code: 0 allow, 2 ask, 3 deny, 1 usage error.
 */
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { describeError, didYouMean, type Kernel } from "../../src/index";
import { PERMISSION_MODES } from "./options";
import { explainPermission } from "./decide";
import { DEFAULT_TOOL_KINDS } from "./policy";
import type { Decision } from "./engine";
import { setupJudge, type SetupVerdict } from "./setup-judge";
import { REVIEW_INSTRUCTIONS, reviewPrompt } from "../reviewer/api";

// node:util by require, not by import: an ESM import of a builtin reads every export, and
// util's lazy ones load worker_threads, the diff and colour code (~2.5 ms of a cold start).
const { parseArgs } = createRequire(import.meta.url)("node:util") as typeof import("node:util");

/** Where the command writes, and (from the runner) the kernel of the project's setup. */
export interface PermissionsCommandIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The kernel built from the config `--config`/`--cwd`/`--trust` name: its rules, mode, folders and sandbox are judged with (absent: the flags' rules alone). */
  kernel?(options?: { quiet?: boolean }): Promise<Kernel>;
}

const USAGE = `Usage: ubiquity permissions check [flags] "<command>"

Decide a call the way a run in this project would, before anyone is asked, and show why: with
the project's setup (its config, the settings files a run reads, the managed policy: their rules,
permission mode, folders and sandbox) and the rules given here on top.

Flags:
  --allow <rule>    an allowedTools rule (repeatable), e.g. --allow 'Bash(git:*)'
  --deny <rule>     a disallowedTools rule (repeatable)
  --ask <rule>      an askTools rule (repeatable)
  --mode <mode>     ${PERMISSION_MODES.join(" | ")} [the setup's]
  --tool <name>     the tool called [Bash]; for Read/Write/Edit/Glob/Grep the argument is a path
  --cwd <dir>       the project's folder [.]
  --config <file>   the config file [found from --cwd]
  --trust           trust the project's folder for this check (its config and files apply)
  --compat <list>   read other tools' files as a run with --compat does, e.g. --compat claude
  --add-dir <dir>   an additional permitted folder (repeatable)
  --rules-only      judge with the rules given here alone (mode default, no sandbox): not the
                    project's setup
  --sandbox         judge as if Bash ran inside the OS sandbox (bypassPermissions leaves
                    writes it cannot name to the sandbox)
  --reviewer        say whether auto-review (mode auto, or the reviewer option) would answer
                    this call, and show the request a reviewer would get
  --json            print the verdict as JSON
  -h, --help        show this help

Exit code: 0 allow, 2 ask, 3 deny, 1 usage error.
`;

const EXIT = { allow: 0, ask: 2, deny: 3 } as const;

/** The flags of `ubiquity permissions`; throws on an unknown flag or a missing value. */
function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      allow: { type: "string", multiple: true },
      deny: { type: "string", multiple: true },
      ask: { type: "string", multiple: true },
      mode: { type: "string" },
      tool: { type: "string" },
      cwd: { type: "string" },
      config: { type: "string" },
      trust: { type: "boolean" },
      compat: { type: "string" },
      "rules-only": { type: "boolean" },
      "add-dir": { type: "string", multiple: true },
      json: { type: "boolean" },
      sandbox: { type: "boolean" },
      reviewer: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}

/** `ubiquity permissions …` with its arguments; resolves to the exit code. */
export async function permissionsCheck(argv: string[], io: PermissionsCommandIO): Promise<number> {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (error) {
    io.stderr(`error: ${describeError(error)}; see \`ubiquity permissions --help\`\n`);
    return 1;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const [sub, ...rest] = positionals;
  if (sub !== undefined && sub !== "check") {
    io.stderr(
      `error: unknown subcommand ${JSON.stringify(sub)}${didYouMean(sub, ["check"])}: expected \`ubiquity permissions check "<command>"\`; see \`ubiquity permissions --help\`\n`,
    );
    return 1;
  }
  if (rest.length !== 1) {
    io.stderr(
      `error: expected \`ubiquity permissions check "<command>"\` (one quoted argument); see \`ubiquity permissions --help\`\n`,
    );
    return 1;
  }
  const asked = PERMISSION_MODES.find((m) => m === values.mode);
  if (values.mode !== undefined && !asked) {
    io.stderr(`error: --mode must be one of ${PERMISSION_MODES.join(", ")}, not ${JSON.stringify(values.mode)}\n`);
    return 1;
  }
  const toolName = values.tool ?? "Bash";
  const subject = rest[0]!;
  const input = DEFAULT_TOOL_KINDS.shell.has(toolName)
    ? { command: subject }
    : DEFAULT_TOOL_KINDS.path.has(toolName)
      ? { file_path: subject, path: subject }
      : { content: subject };
  const rules = { allow: values.allow, deny: values.deny, ask: values.ask };
  let decision: Decision;
  let setup: SetupVerdict | undefined;
  try {
    if (io.kernel && !values["rules-only"]) {
      const judge = setupJudge(await io.kernel());
      if (!judge) {
        io.stderr(
          "error: this project's plugin list has no ubiquity:permissions plugin, so its runs judge no call by rules; --rules-only judges the rules given here alone\n",
        );
        return 1;
      }
      setup = await judge({
        toolName,
        input,
        rules,
        ...(asked ? { mode: asked } : {}),
        // As `run --add-dir` resolves them: from where the command runs, not from --cwd (red team zq, ZQ8).
        additionalDirectories: (values["add-dir"] ?? []).map((d) => resolve(d)),
        sandbox: values.sandbox === true,
      });
      if (setup.refused) {
        io.stderr(`error: --mode ${setup.mode}: this project's setup refuses it (${setup.refused})\n`);
        return 1;
      }
      decision = setup.decision;
    } else
      decision = await explainPermission({
        toolName,
        input,
        rules,
        mode: asked ?? "default",
        cwd: values.cwd,
        additionalDirectories: values["add-dir"],
        sandbox: values.sandbox === true,
        sources: { allow: "--allow", deny: "--deny", ask: "--ask" },
      });
  } catch (error) {
    io.stderr(`error: ${describeError(error)}\n`);
    return 1;
  }
  const mode = setup?.mode ?? asked ?? "default";
  const review = values.reviewer
    ? reviewerView(decision, toolName, input, values.cwd ?? process.cwd(), mode)
    : undefined;
  io.stdout(
    values.json
      ? `${JSON.stringify({ ...report(decision), ...(setup ? { setup: setupReport(setup) } : {}), ...(review ? { reviewer: review } : {}) }, null, 2)}\n`
      : `${format(decision)}${setup ? formatSetup(setup) : ""}${review ? formatReview(review) : ""}`,
  );
  return EXIT[decision.behavior];
}

/** What auto-review would do with a decision: answer it (with the request it would get), or leave it to the rules or the user. */
function reviewerView(d: Decision, toolName: string, input: Record<string, unknown>, cwd: string, mode: string) {
  if (d.behavior !== "ask")
    return { answers: false, why: `the rules decide (${d.behavior}); the reviewer is not asked` };
  if (d.step !== "mode")
    return {
      answers: false,
      why: `the engine asks because of ${d.step === "ask-rule" ? "an ask rule" : d.step === "sensitive" ? "a sensitive path" : `its ${d.step} step`}: that is the user's to answer, never the reviewer's`,
    };
  const request = {
    toolName,
    input,
    reason: d.message,
    intent: ["(the user's prompts)"],
    conversation: ["(the run's recent turns, without tool outputs)"],
    cwd,
    permissionMode: mode === "default" ? "auto" : mode,
  };
  return { answers: true, instructions: REVIEW_INSTRUCTIONS, request: reviewPrompt(request) };
}

function formatReview(view: ReturnType<typeof reviewerView>): string {
  if (!view.answers) return `reviewer: not asked — ${view.why}\n`;
  return `reviewer: answers this call (mode auto, or the reviewer option); a model reviewer gets these instructions:\n${indent(view.instructions!)}\nand this request:\n${indent(view.request!)}\n`;
}

const indent = (text: string) =>
  text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");

/** What the setup judged with, as JSON gives it. */
function setupReport(s: SetupVerdict) {
  return { mode: s.mode, sandboxed: s.sandboxed, rules: s.sources };
}

/** The line that says what the project's setup judged with. */
function formatSetup(s: SetupVerdict): string {
  const rules = s.sources.length ? s.sources.join("; ") : "none";
  return `judged with the project's setup: mode ${s.mode}${s.sandboxed ? ", this command in the OS sandbox" : ""}; rules from ${rules}\n`;
}

function report(d: Decision) {
  const s = d.subject;
  return {
    behavior: d.behavior,
    message: d.message,
    ...(d.rule ? { rule: d.rule } : {}),
    step: d.step,
    ...(s?.kind === "shell"
      ? {
          candidates: s.analysis.candidates.map((c) => ({
            command: c.text,
            required: c.required,
            ...(c.via ? { via: c.via } : {}),
          })),
          unsafe: s.unsafe,
        }
      : s?.kind === "path"
        ? { paths: s.paths }
        : {}),
  };
}

function format(d: Decision): string {
  const lines = [`${d.behavior}: ${d.message}`];
  if (d.rule) lines.push(`rule: ${d.rule}`);
  const s = d.subject;
  if (s?.kind === "shell") {
    if (s.analysis.candidates.length > 0) lines.push("commands:");
    for (const c of s.analysis.candidates)
      lines.push(
        `  ${c.text}${c.required ? "" : "   (wrapper: its command is judged)"}${c.via ? `   [via ${c.via}]` : ""}`,
      );
    if (s.unsafe.length > 0) lines.push("cannot be proven safe:", ...s.unsafe.map((u) => `  - ${u}`));
  } else if (s?.kind === "path") {
    for (const p of s.paths) lines.push(`path: ${p.absolute}${p.real && p.real !== p.absolute ? ` → ${p.real}` : ""}`);
  }
  return `${lines.join("\n")}\n`;
}
