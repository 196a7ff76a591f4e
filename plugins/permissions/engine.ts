/**
 * The permission engine: one call in, one verdict out, through the precedence chain —
 *   1. plan mode refuses anything not read-only
 *   2. deny rules (bare, or content matching ANY candidate)
 *   3. ask rules (same)
 *   4. the tool's own checkPermissions (a throwing check denies)
 *   5. sensitive paths (writes ask)
 *   6. bypassPermissions allows
 *   7. allow rules (content rules must cover EVERY candidate; unprovable commands never qualify)
 *   8. the mode's default (read-only calls run, those reaching the network only in plan mode;
 *      acceptEdits runs edits inside the roots)
 * and finally, in dontAsk mode, anything that would ask is denied.
 */
import { lstatSync, readdirSync, type Dirent } from "node:fs";
import { tmpdir } from "node:os";
import { resolveReal } from "../_kits/paths/index";
import { insideRoots } from "./paths";
import { posix } from "node:path";
import type { Tool, ToolContext, ToolPermission } from "../../src/index";
import type { PermissionMode } from "./options";
import { describeError } from "../../src/index";
import {
  compilePolicy,
  DEFAULT_TOOL_KINDS,
  namesPatchTool,
  readDenyRule,
  type CompiledRule,
  type Policy,
} from "./policy";
import { ruleNamesTool } from "./rules";
import { buildSubject, type Place, type Subject } from "./subject";
import { noteCommandPath } from "./sensitive";
import { findShell } from "../_kits/process/index";
import { suggest } from "./suggest";
import { SEARCH_TOOLS } from "./filter-results";
import { analyzeShell } from "./shell/analyze";
import type { ShellCandidate } from "./shell/types";

/** One call to decide. */
export interface DecideRequest {
  toolName: string;
  input: Record<string, unknown>;
  /** The tool, when known: its isReadOnly, checkPermissions and permissionRuleContent take part. */
  tool?: Tool;
  /** What the tool's checkPermissions receives. */
  toolContext?: ToolContext;
}

/** Which step of the chain decided. */
export type DecisionStep =
  | "plan"
  | "deny-rule"
  | "ask-rule"
  | "tool"
  | "sensitive"
  | "bypass"
  | "allow-rule"
  | "mode"
  | "dont-ask";

/** The engine's verdict. */
export interface Decision {
  behavior: "allow" | "ask" | "deny";
  message: string;
  /** The rule that decided, when one did. */
  rule?: string;
  step: DecisionStep;
  /** Rules that would allow this kind of call from now on (for a handler's "always"). */
  suggestions: string[];
  /** The subject the rules were matched against (candidates, paths), for explanations. */
  subject?: Subject;
  /** With allow from the tool's own check: the input the call runs with instead. */
  updatedInput?: Record<string, unknown>;
  /**
   * With ask: a question only whoever answers prompts may answer (PermissionVerdict.firm), beyond
   * an ask rule's and a sensitive path's: a shell command outside the sandbox writing what the
   * engine cannot name, which could be a sensitive path.
   */
  firm?: boolean;
  /**
   * With a sensitive path's ask for a sandboxed shell command: why the sandbox leaves that path
   * writable, so that the sandbox's autoAllowBash does not answer the question (red team zb, ZB5).
   */
  sandboxOpen?: string;
}

/** Where and under which rules a call is judged. */
export interface EngineSetup {
  mode: PermissionMode;
  policy: Policy;
  place: Place;
  /**
   * Does this shell command run inside the OS sandbox? Then the sandbox, not the engine, keeps
   * bypassPermissions from writes the engine cannot name. [() => false]
   */
  sandboxed?: (command: string) => boolean;
}

// The tool that writes to a background shell's stdin (ubiquity:background).
const TYPED_INTO_SHELL = "BashInput";

// Used when the engine has no Tool to ask (decidePermission with a bare tool name).
const READ_ONLY_TOOLS = new Set(["Read", "Glob", "Grep", "LSP", "AskUserQuestion"]);

/** Decide one call. Never throws: a failing check denies. */
export async function decide(request: DecideRequest, setup: EngineSetup): Promise<Decision> {
  let decision: Decision;
  // The folders on the PATH the run gives its commands are where a planted program runs (Y2).
  noteCommandPath(setup.place.commandPath);
  try {
    decision = await chain(request, setup);
  } catch (error) {
    // A check that cannot finish (a path the file system refuses, a NUL in a name) denies.
    return verdict(
      "deny",
      "deny-rule",
      `Permission check failed, so ${request.toolName} was denied: ${describeError(error)}`,
    );
  }
  // Red team l (L3): `x=.git/hooks/pre-commit; printf … > $x` outside the sandbox asked as the
  // mode's question, which a PreToolUse hook's approve answers, and wrote the git hook; named, the
  // same write is a sensitive path's question, which it does not (fail closed: the write could be it).
  const subject = decision.subject;
  // The analysis reads a command as bash does; another shell runs it where PATH has no bash
  // (/bin/sh: dash, busybox), and reads it otherwise (`((touch m))` is arithmetic to bash, a
  // command to dash). Outside the sandbox an allow then proves nothing: it asks (red team z).
  if (
    decision.behavior === "allow" &&
    subject?.kind === "shell" &&
    setup.mode !== "bypassPermissions" &&
    setup.sandboxed?.(subject.analysis.source) !== true &&
    !findShell(setup.place.commandPath ?? process.env.PATH).endsWith("/bash")
  )
    decision = verdict(
      "ask",
      "mode",
      `${request.toolName} needs approval: commands are judged as bash reads them, and this system has no bash on PATH (${findShell(setup.place.commandPath ?? process.env.PATH)} runs them). Install bash for rules and modes to approve commands.`,
      subject,
    );
  if (
    decision.behavior === "ask" &&
    subject?.kind === "shell" &&
    subject.unknownWrites.length > 0 &&
    setup.sandboxed?.(subject.analysis.source) !== true
  )
    decision.firm = true;
  if (decision.behavior === "ask" && setup.mode === "dontAsk") {
    return {
      ...decision,
      behavior: "deny",
      step: "dont-ask",
      message: `${decision.message} Permission mode dontAsk never prompts, so it was denied; use a pre-approved tool or command, or tell the user what you need.`,
    };
  }
  return decision;
}

async function chain(request: DecideRequest, setup: EngineSetup): Promise<Decision> {
  const { toolName, input, tool } = request;
  const { mode, policy } = setup;
  const readOnly = tool ? safely(() => tool.isReadOnly(input) === true, false) : READ_ONLY_TOOLS.has(toolName);

  if (mode === "plan" && !readOnly) {
    return verdict(
      "deny",
      "plan",
      `Plan mode: ${toolName} can change things, so it was not run. Investigate with read-only tools, then present your plan to the user for approval instead of making changes.`,
    );
  }

  let subject: Subject;
  try {
    const content = tool ? safely(() => tool.permissionRuleContent(input), undefined) : undefined;
    subject = buildSubject(toolName, input, content, policy.kinds, setup.place);
  } catch (error) {
    return verdict("deny", "deny-rule", `Permission check failed, so ${toolName} was denied: ${describeError(error)}`);
  }

  // The project's code (a Makefile's recipes, package scripts) reads and writes what it likes: no
  // Edit or Write rule can be shown not to apply to it, nor a Read rule outside the sandbox
  // (inside, a Read deny or ask rule's files are unreadable; red team j, J3).
  const ruled = ruleVerdict(policy, toolName, withProjectCode(subject, setup));
  if (ruled) return ruled;
  const hover = hoverVerdict(policy, toolName, input, subject);
  if (hover) return hover;

  const own = tool ? await toolVerdict(tool, request, setup, subject) : undefined;
  if (own) return own;

  const sandboxed = subject.kind === "shell" && setup.sandboxed?.(subject.analysis.source) === true;
  const sensitive =
    subject.kind === "shell"
      ? (subject.sensitive ?? (sandboxed ? undefined : subject.unsandboxed))
      : subject.kind === "path"
        ? subject.sensitive
        : undefined;
  if (sensitive)
    return {
      ...verdict(
        "ask",
        "sensitive",
        `${toolName} needs approval: ${sensitive}. Writes to sensitive paths always ask.`,
        subject,
      ),
      suggestions: [],
      ...(sandboxed && subject.kind === "shell" && subject.sandboxOpen ? { sandboxOpen: subject.sandboxOpen } : {}),
    };

  if (mode === "bypassPermissions") return bypassVerdict(toolName, setup, subject, sandboxed);

  const allowRules = rulesForCall(policy, "allow", toolName, subject).filter((r) =>
    subject.kind === "shell" ? ruleNamesTool(r, toolName) : true,
  );
  const cover = covered(allowRules, subject);
  const unapprovedEdit = cover.ok ? editVerdict(toolName, setup, subject) : undefined;
  if (unapprovedEdit) return unapprovedEdit;
  if (cover.ok)
    return {
      ...verdict("allow", "allow-rule", `Allowed by ${cover.rule ?? "the allow rules"}.`, subject),
      ...(cover.rule ? { rule: cover.rule } : {}),
    };

  // A read that leaves the machine (a URL, a search query) runs by default only in plan mode.
  const network = (policy.kinds.network ?? DEFAULT_TOOL_KINDS.network)?.has(toolName) === true;
  if (readOnly && (!network || mode === "plan"))
    return verdict("allow", "mode", `Allowed: ${toolName} only reads.`, subject);
  if (
    mode === "acceptEdits" &&
    policy.kinds.edit.has(toolName) &&
    subject.kind === "path" &&
    subject.paths.length > 0 &&
    !subject.outside
  ) {
    return verdict(
      "allow",
      "mode",
      "Allowed: permission mode acceptEdits approves edits inside the permitted folders.",
      subject,
    );
  }
  if (mode === "acceptEdits" && acceptedFilesystemCommand(toolName, subject, setup))
    return verdict(
      "allow",
      "mode",
      `Allowed: permission mode acceptEdits approves the filesystem commands ${ACCEPTED_PROGRAMS.join(", ")} inside the permitted folders.`,
      subject,
    );
  const why = allowRules.length > 0 && cover.why ? cover.why : `it is not pre-approved (permission mode ${mode})`;
  // Suggestions cost as much as the decision (they resolve paths and compile candidate rules) and
  // matter only when a handler is asked: computed on first read.
  return lazySuggestions(verdict("ask", "mode", `${toolName} needs approval: ${why}.`, subject), () =>
    provenSuggestions(toolName, subject, setup, suggest(toolName, subject, setup.place)),
  );
}

/**
 * The suggested rules, only when they cover the call as the engine's own allow rules would, else
 * none. A handler's "always" remembers them as strings and allows a later call whose suggestions
 * are the same strings without asking the engine again (runner/approver.ts, the editor's
 * allow_always): a suggestion that matches the call's text but not the call (an option the engine
 * does not know, project code a program-wide rule does not name) made "always for `npm test`"
 * allow `npm test --script-shell=./x.sh` (red team q, Q1). Fail closed: no suggestion, no "always".
 */
function provenSuggestions(toolName: string, subject: Subject, setup: EngineSetup, rules: string[]): string[] {
  if (rules.length === 0) return rules;
  try {
    const { cwd, home } = setup.place;
    const policy = compilePolicy({ allow: rules }, { cwd, home, kinds: setup.policy.kinds });
    const allow = rulesForCall(policy, "allow", toolName, subject).filter((r) =>
      subject.kind === "shell" ? ruleNamesTool(r, toolName) : true,
    );
    return covered(allow, subject).ok ? rules : [];
  } catch {
    return [];
  }
}

/** The first deny rule, then ask rule, that matches the call, as its verdict. */
function ruleVerdict(policy: Policy, toolName: string, subject: Subject): Decision | undefined {
  for (const [list, behavior, step] of [
    ["deny", "deny", "deny-rule"],
    ["ask", "ask", "ask-rule"],
  ] as const) {
    for (const rule of rulesForCall(policy, list, toolName, subject)) {
      const hit =
        rule.tool === toolName || subject.kind !== "shell"
          ? matchAny(rule, subject)
          : matchFiles(rule, subject, policy.kinds);
      if (hit === undefined) continue;
      const what = hit ? ` (${hit})` : "";
      const message =
        behavior === "deny"
          ? `Permission denied: the rule ${rule.text} in ${rule.source} forbids this${what}.${unnamedReadWayOut(rule, hit)}`
          : `${toolName} needs approval: the rule ${rule.text} in ${rule.source} asks for it${what}.`;
      return { ...verdict(behavior, step, message, subject), rule: rule.text };
    }
  }
  return undefined;
}

/**
 * A Read deny rule denies every command running a program the engine does not know (`python -m
 * pytest`, `.venv/bin/ruff`, `pip`): it could read the rule's file by a name the engine cannot see,
 * the sandbox's masks included (a committed `.env` in git's objects). No allow rule lifts that, which
 * the denial now says with the ways out (trial zg: Claude Code's `Read(./.env)` stopped every Python
 * command of the project, naming no fix).
 */
function unnamedReadWayOut(rule: CompiledRule, hit: string): string {
  if (rule.tool !== "Read" || !hit.endsWith("which could be a file this rule names")) return "";
  return ` An allow rule does not lift a deny rule: to let such commands run, make it an ask rule (each one then asks) or remove it (the Read tool may then read the file; sandboxed commands still cannot read .env files). See "Python projects" in the sandbox guide.`;
}

/**
 * An LSP hover shows what the language server made of other files (a type inferred from a
 * constant, a comment), which no path in the answer names, so the lines of a denied file cannot
 * be withheld from it: while a Read deny rule names paths, hover is refused (fail closed).
 */
function hoverVerdict(
  policy: Policy,
  toolName: string,
  input: Record<string, unknown>,
  subject: Subject,
): Decision | undefined {
  if (toolName !== "LSP" || input.operation !== "hover") return undefined;
  const rule = readDenyRule(policy);
  if (!rule) return undefined;
  return {
    ...verdict(
      "deny",
      "deny-rule",
      `Permission denied: LSP hover is refused while the rule ${rule.text} in ${rule.source} is in force, since a hover can carry text of a file it names without naming the file. Use goToDefinition and Read instead.`,
      subject,
    ),
    rule: rule.text,
  };
}

/** The tool's own permission check (`checkPermissions`), when it has an opinion; a check that throws denies. */
async function toolVerdict(
  tool: NonNullable<DecideRequest["tool"]>,
  request: DecideRequest,
  setup: EngineSetup,
  subject: Subject,
): Promise<Decision | undefined> {
  const { toolName, input } = request;
  let opinion: ToolPermission;
  try {
    opinion = await tool.checkPermissions(input, request.toolContext ?? placeholderContext(setup.place));
  } catch (error) {
    return verdict(
      "deny",
      "tool",
      `${toolName}'s own permission check failed, so the call was denied: ${describeError(error)}`,
      subject,
    );
  }
  if (opinion?.behavior === "deny")
    return verdict("deny", "tool", opinion.message || `${toolName} refused this call.`, subject);
  if (opinion?.behavior === "ask")
    return {
      ...verdict("ask", "tool", opinion.message || `${toolName} asks for approval.`, subject),
      suggestions: [],
    };
  if (opinion?.behavior === "allow") {
    const allowed = verdict("allow", "tool", opinion.message || `${toolName} allowed this call itself.`, subject);
    const updated = opinion.updatedInput;
    return updated && typeof updated === "object" && !Array.isArray(updated)
      ? { ...allowed, updatedInput: updated }
      : allowed;
  }
  return undefined;
}

/**
 * `subject` with the project code it runs counted as edits it cannot name and, when it runs
 * outside the sandbox, as reads it cannot name; outside the sandbox, a program the engine does not
 * know counts as such an edit too (`unseenCode`). The sandbox keeps an Edit or Write rule's files
 * read-only (red team q, Q2), but not a new file a pattern at the top of a folder names
 * (`Edit(*.lock)`): project code stays denied under such a rule in the sandbox too (J3).
 */
function withProjectCode(subject: Subject, setup: EngineSetup): Subject {
  if (subject.kind !== "shell") return subject;
  const sandboxed = setup.sandboxed?.(subject.analysis.source) === true;
  const unseen = sandboxed ? [] : unseenCode(subject, setup.policy);
  if (subject.projectCode.length + unseen.length === 0) return subject;
  return {
    ...subject,
    unknownReads: sandboxed ? subject.unknownReads : [...subject.unknownReads, ...subject.projectCode],
    unknownEdits: [...subject.unknownEdits, ...subject.projectCode, ...unseen],
  };
}

/**
 * Code the engine cannot see (a program it knows nothing of: `python3 -c …`, `./x.sh`, `node -e
 * …`) writes what it likes: outside the sandbox (which keeps an Edit or Write rule's files
 * read-only, Q2) no such rule can be shown not to apply, as a Read rule already is not (such a
 * program makes links). A program an allow rule names is the user's to vouch for (issue 35):
 * its writes are its operands, as before (red team q, Q5).
 */
function unseenCode(subject: Extract<Subject, { kind: "shell" }>, policy: Policy): string[] {
  const { candidates, linkers } = subject.analysis;
  const vouched = (c: ShellCandidate) =>
    policy.allow.some(
      (r) => [...policy.kinds.shell].some((t) => ruleNamesTool(r, t)) && r.command?.test(c.text, c.open) === true,
    );
  const out = new Set<string>();
  for (const i of linkers) {
    const c = candidates[i];
    if (c?.unproven?.at === 0 && !vouched(c))
      out.add(`${c.name} is a program the engine does not know, which may write any file`);
  }
  return [...out];
}

/** bypassPermissions: allowed, unless a write or a command the engine cannot name could slip past the sandbox or a rule. */
function bypassVerdict(toolName: string, setup: EngineSetup, subject: Subject, sandboxed: boolean): Decision {
  const { policy } = setup;
  // Without the sandbox nothing stops a write the engine cannot name: it could be ~/.bashrc.
  // So is a write outside the permitted folders (a start-up file, a program on PATH): without the
  // sandbox only the folders the user permitted (and the temp folder) are written without asking.
  const outside =
    subject.kind === "shell" && !sandboxed
      ? subject.outsideWrites.find((p) => !isTemp(p) || p === setup.place.home || p.startsWith(`${setup.place.home}/`))
      : undefined;
  if (outside) {
    return {
      ...verdict(
        "ask",
        "bypass",
        `${toolName} needs approval: it writes ${outside}, outside the permitted folders, and without the sandbox bypassPermissions asks for that.`,
        subject,
      ),
      suggestions: [],
    };
  }
  if (subject.kind === "shell" && subject.unknownWrites.length > 0 && !sandboxed) {
    return {
      ...verdict(
        "ask",
        "bypass",
        `${toolName} needs approval: ${subject.unknownWrites[0]}, and without the sandbox bypassPermissions cannot keep such a write away from files that run code later.`,
        subject,
      ),
      suggestions: [],
    };
  }
  // A command that cannot be pinned down could be running what a deny or ask rule names
  // (`/bin/r[m]`, `$a$b`): bypass must not turn a rule that could not see into an allow.
  // File rules count too: a write or read it cannot name could be the file a Read/Edit rule names.
  // Text typed into a running background shell (BashInput) is a command no shell rule could
  // judge: with a deny or ask rule on a shell tool, bypass does not carry it past that rule.
  if (
    toolName === TYPED_INTO_SHELL &&
    [...policy.deny, ...policy.ask].some((r) => [...policy.kinds.shell].some((t) => ruleNamesTool(r, t)))
  ) {
    return verdict(
      "ask",
      "bypass",
      `${toolName} needs approval: what it types into a shell is not judged by your rules on ${[...policy.kinds.shell].join(", ")}, so bypassPermissions does not apply.`,
      subject,
    );
  }
  const watched = [...policy.deny, ...policy.ask].some(
    (r) =>
      r.content !== undefined && (ruleNamesTool(r, toolName) || r.tool === "Read" || policy.kinds.edit.has(r.tool)),
  );
  if (subject.kind === "shell" && subject.unsafe.length > 0 && watched) {
    return verdict(
      "ask",
      "bypass",
      `${toolName} needs approval: ${JSON.stringify(subject.analysis.source)} cannot be proven free of the commands your deny and ask rules name (${subject.unsafe.join("; ")}), so bypassPermissions does not apply.`,
      subject,
    );
  }
  return verdict("allow", "bypass", "Allowed: permission mode bypassPermissions.", subject);
}

/**
 * The filesystem commands of Claude Code's acceptEdits list that this mode runs without asking. Not
 * `mv` (nor `rm`, `rmdir`, `sed`): a move or a removal leaves the paths later parts of a command
 * name unprovable to the engine, so they ask (fail closed), and the allow message names only these.
 */
const ACCEPTED_PROGRAMS = ["mkdir", "touch", "cp"];

/**
 * acceptEdits and a shell command made only of `mkdir`, `touch` and `cp`, as Claude Code
 * documents the mode: allowed only where the engine proves it as it would under the allow rules
 * `Bash(mkdir:*)`, `Bash(touch:*)`, … (every option known, every operand literal, no write outside
 * the roots), and besides every file it reads is inside the roots and every file it writes is
 * named. Anything short of that asks, as before.
 */
function acceptedFilesystemCommand(toolName: string, subject: Subject, setup: EngineSetup): boolean {
  if (subject.kind !== "shell" || subject.analysis.candidates.length === 0) return false;
  if (subject.outsideWrites.length > 0 || subject.unknownWrites.length > 0 || subject.unknownEdits.length > 0)
    return false;
  if (subject.unknownReads.length > 0 || subject.maybe.length > 0 || subject.projectCode.length > 0) return false;
  const { cwd, home, roots } = setup.place;
  const policy = compilePolicy(
    { allow: ACCEPTED_PROGRAMS.map((program) => `${toolName}(${program}:*)`) },
    { cwd, home, kinds: setup.policy.kinds },
  );
  const rules = rulesForCall(policy, "allow", toolName, subject).filter((r) => ruleNamesTool(r, toolName));
  if (!covered(rules, subject).ok || rules.some((r) => r.content === undefined)) return false;
  return [...subject.reads(), ...subject.recursiveReads, ...subject.writes].every((p) => insideRoots(p, roots));
}

/** A shell command the allow rules cover that writes a file: outside acceptEdits each write needs what Write would need. */
function editVerdict(toolName: string, setup: EngineSetup, subject: Subject): Decision | undefined {
  const { mode, policy } = setup;
  if (subject.kind !== "shell" || subject.edits.length === 0 || mode === "acceptEdits") return undefined;
  // A file the command writes is an edit: outside acceptEdits it needs what Write would need.
  const editRules = policy.allow.filter((r) => [...policy.kinds.edit].some((t) => ruleNamesTool(r, t)));
  const uncovered = subject.edits.find(
    (p) =>
      !editRules.some(
        (r) => r.content === undefined || (r.path?.(p.absolute) && (p.real === undefined || r.path?.(p.real))),
      ),
  );
  if (uncovered) {
    return {
      ...verdict(
        "ask",
        "mode",
        `${toolName} needs approval: it writes ${uncovered.absolute}, and a write asks as Write would (permission mode ${mode}); allow it with an Edit(...) rule or use acceptEdits.`,
        subject,
      ),
      suggestions: [],
    };
  }
  return undefined;
}

function verdict(behavior: Decision["behavior"], step: DecisionStep, message: string, subject?: Subject): Decision {
  return { behavior, step, message, suggestions: [], ...(subject ? { subject } : {}) };
}

/**
 * The rules of `list` that speak to this call: its own, those of every edit tool for an edit
 * tool (Edit rules cover Write and Write rules cover Edit), Read's for Grep and Glob, and for a
 * shell command also the file-tool rules its reads and writes answer to.
 */
function rulesForCall(
  policy: Policy,
  list: "allow" | "deny" | "ask",
  toolName: string,
  subject: Subject,
): CompiledRule[] {
  const { kinds } = policy;
  const names = new Set([toolName]);
  if (kinds.edit.has(toolName)) for (const t of kinds.edit) names.add(t);
  if (SEARCH_TOOLS.has(toolName)) names.add("Read");
  if (subject.kind === "shell" && list !== "allow") {
    if (
      subject.writes.length > 0 ||
      subject.unknownWrites.length > 0 ||
      subject.unknownEdits.length > 0 ||
      subject.maybe.length > 0
    )
      for (const t of kinds.edit) names.add(t);
    if (
      subject.analysis.reads.length > 0 ||
      subject.recursiveReads.length > 0 ||
      subject.unknownReads.length > 0 ||
      subject.maybe.length > 0
    )
      names.add("Read");
  }
  const namesAny = (r: CompiledRule) => {
    for (const n of names) if (ruleNamesTool(r, n)) return true;
    return false;
  };
  return policy[list].filter(
    (r) =>
      namesAny(r) &&
      (r.content !== undefined || r.tool === toolName || ruleNamesTool(r, toolName) || namesPatchTool(r, toolName)),
  );
}

/** For a shell command: the file a Read/Edit/Write rule hits among what it reads or writes. */
function matchFiles(
  rule: CompiledRule,
  subject: Extract<Subject, { kind: "shell" }>,
  kinds: Policy["kinds"],
): string | undefined {
  const reading = rule.tool === "Read";
  if (!reading && !kinds.edit.has(rule.tool)) return undefined;
  const paths = reading ? subject.reads() : subject.writes;
  const hit = paths.find((p) => rule.path?.(p.absolute) || (p.real !== undefined && rule.path?.(p.real)));
  if (hit) return `it ${reading ? "reads" : "writes"} ${hit.absolute}`;
  // An operand of a program the engine does not know may be read or written.
  const maybe = subject.maybe.find((p) => rule.path?.(p.absolute) || (p.real !== undefined && rule.path?.(p.real)));
  if (maybe)
    return `${maybe.absolute} is an argument of a program the engine does not know, which may ${reading ? "read" : "write"} it`;
  // A folder read to the bottom (grep -r, rg) reads every file below it that the rule may name.
  if (reading) {
    // A literal path that does not exist is below no folder (the walk would only run out of budget).
    const absent = rule.path?.absent?.() === true;
    // A repository's stored files below a pathspec are not the disk's (a .env deleted since, but in
    // every revision): a rule that may name a path at or below it applies. A pathspec naming a
    // regular file here is judged as that file (its read is judged with the others): a revision
    // holding a folder of that name is left to the sandbox, or `git log -p -- src/app.ts` would be
    // denied under every bare-name rule (`Read(.env)`).
    const stored = subject.recursiveReads.find(
      (p) =>
        p.stored &&
        !isRegularFile(p.absolute) &&
        [p.absolute, p.real].some((d) => d !== undefined && rule.path?.mayNameBelow?.(d) !== false),
    );
    if (stored)
      return `it prints files the repository stores below ${stored.absolute} (in revisions or the index), which may be one this rule names`;
    for (const dir of absent ? [] : subject.recursiveReads) {
      const below = fileBelow(dir.real ?? dir.absolute, (p) => rule.path?.(p) === true);
      if (below)
        return `it reads every file below ${dir.absolute}, ${below === true ? "too many to check one by one" : `among them ${below}`}`;
    }
  }
  // A file it cannot name could be the one the rule names.
  const unknown = reading ? subject.unknownReads : [...subject.unknownWrites, ...subject.unknownEdits];
  if (rule.content !== undefined && unknown.length > 0) return `${unknown[0]}, which could be a file this rule names`;
  return undefined;
}

/** Is `path` a regular file (not a link, not a folder)? */
function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** The temp folder (and /tmp): written without asking in bypassPermissions, as every build does. */
function isTemp(path: string): boolean {
  const tmp = [tmpdir(), "/tmp", "/var/tmp", process.env.TMPDIR].filter(
    (t): t is string => typeof t === "string" && t !== "",
  );
  return tmp.some((t) => path === t || path.startsWith(t.endsWith("/") ? t : `${t}/`));
}

/** Most entries a folder read to the bottom is searched through for a file a rule names: past it, fail closed. */
const MAX_BELOW = 20_000;

/** A file at or below `dir` that `hit` accepts; true when there are too many to tell; undefined when none. */
function fileBelow(dir: string, hit: (path: string) => boolean): string | true | undefined {
  const stack = [dir];
  const visited = new Set<string>();
  let seen = 0;
  while (stack.length > 0) {
    const path = stack.pop()!;
    if (hit(path)) return path;
    if (++seen > MAX_BELOW) return true;
    let entries: Dirent[];
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch {
      continue; // a file, or unreadable: nothing below
    }
    for (const e of entries) {
      const child = `${path}/${e.name}`;
      if (hit(child)) return child;
      if (++seen > MAX_BELOW) return true;
      if (e.isDirectory()) stack.push(child);
      else if (e.isSymbolicLink()) {
        // grep -R, rg -L and tar -h follow links: judge where each leads, and search a folder it leads to.
        const real = resolveReal(child);
        if (real === undefined) return true;
        if (hit(real)) return `${child} (→ ${real})`;
        if (!visited.has(real)) {
          visited.add(real);
          stack.push(real);
        }
      }
    }
  }
  return undefined;
}

/** The candidate (or path) a deny/ask rule hits: "" for a bare rule, undefined for no hit. */
function matchAny(rule: CompiledRule, subject: Subject): string | undefined {
  if (rule.content === undefined) return "";
  switch (subject.kind) {
    case "shell": {
      // Deny and ask see every candidate, also under its program's plain name (/bin/rm is rm).
      const hit = subject.analysis.candidates.find(
        (c) =>
          rule.command?.test(c.text, c.open) ||
          rule.command?.test(plainName(c), c.open) ||
          equivalents(c).some((t) => rule.command?.test(t, c.open)),
      );
      if (hit) return hit.text;
      // The same command written another way: global options before the sub-command (`git -C . push`),
      // options in another order, clustered, abbreviated or by another name (`rm -fr`, `git reset -q --har`,
      // `npm run-script`); or a sub-command or option the engine does not know of the denied program (`npm rum`).
      const same = subject.analysis.candidates.find((c) => sameCommand(rule, c));
      if (same)
        return `${same.text} (${same.unproven ? `${same.unproven.why}, so it may be what the rule names` : "the same command as the rule names"})`;
      // A command that runs what cannot be seen (`$a $b`, `eval "$x"`, code on stdin) could run what the rule names.
      if (subject.analysis.hidden.length > 0)
        return `it cannot be pinned down, and could run what the rule names: ${subject.analysis.hidden[0]}`;
      // A program the engine does not know (or a sub-command or option it does not know: `npm exec`,
      // `setarch x86_64`) may run the rest of its words as a command, as an unknown wrapper would.
      const wrapped = subject.analysis.candidates.find(
        (c) => c.unproven && tails(c, c.unproven.at).some((t) => rule.command?.test(t, true)),
      );
      if (wrapped) return `${wrapped.text} (${wrapped.unproven!.why}; it may run the rest of its words)`;
      // A program the engine does not know, fed by the text (`… | su`, `… | script`, `… | guile`),
      // may be a shell or a REPL running what it reads, as `… | sh` is: what that is cannot be seen.
      const fed = subject.analysis.candidates.find((c) => c.fed && c.unproven?.at === 0);
      if (fed) return `${fed.text} (${fed.unproven!.why}, and it may run what is fed to it)`;
      // What cannot be proven, or a program the engine does not understand (which may run a string
      // it is given: `tmux new 'rm -rf /'`, `python3 -c '…rm…'`, `ed <<< '!rm'`): the denied name visible in the text is enough.
      if (
        (subject.unsafe.length > 0 || subject.analysis.candidates.some((c) => c.unproven)) &&
        visibleInside(rule.content, subject.analysis.source)
      )
        return `visible in ${JSON.stringify(subject.analysis.source)}`;
      return undefined;
    }
    case "path": {
      const hit = subject.paths.find((p) => rule.path?.(p.absolute) || (p.real !== undefined && rule.path?.(p.real)));
      return hit ? (hit.real && hit.real !== hit.absolute ? `${hit.absolute} → ${hit.real}` : hit.absolute) : undefined;
    }
    default:
      return subject.strings?.find((s) => rule.command?.test(s));
  }
}

// Commands that are another program by another name: `npm exec x` is `npx x`, `pnpm dlx x` is `pnpx x`.
const EQUIVALENT: readonly [RegExp, string][] = [
  [/^npm (?:exec|x)(?: --)?(?= |$)/, "npx"],
  [/^pnpm (?:dlx|exec)(?: --)?(?= |$)/, "pnpx"],
  [/^bun x(?= |$)/, "bunx"],
  [/^yarn dlx(?= |$)/, "npx"],
];

function equivalents(candidate: ShellCandidate): string[] {
  const text = plainName(candidate);
  return EQUIVALENT.filter(([re]) => re.test(text)).map(([re, to]) => text.replace(re, to));
}

const ruleForms = new Map<string, { canonical: string[]; subDepth: number } | null>();

/**
 * Does `candidate` (a program with a spec) run what a prefix or exact Bash rule names, read in
 * canonical form? The program and sub-commands must be the rule's, and every further word of the
 * rule must be among the candidate's; a candidate the engine could not read to the end matches
 * when its sub-commands so far agree with the rule's.
 */
function sameCommand(rule: CompiledRule, candidate: ShellCandidate): boolean {
  if (!candidate.canonical || !rule.content) return false;
  // `git push *` with its one wildcard at the end means `git push:*`; other wildcards are read as written.
  if (rule.command?.kind === "wildcard" && !/^[^*]*[^\\] \*$/.test(rule.content)) return false;
  const head = rule.command?.kind === "wildcard" ? rule.content.slice(0, -2) : rule.content.replace(/:\*$/, "");
  let form = ruleForms.get(head);
  if (form === undefined) {
    let parsed: ShellCandidate | undefined;
    try {
      const analysis = analyzeShell(head);
      parsed = analysis.candidates.length === 1 ? analysis.candidates[0] : undefined;
    } catch {
      parsed = undefined;
    }
    form =
      parsed?.canonical && parsed.subDepth !== undefined
        ? { canonical: parsed.canonical, subDepth: parsed.subDepth }
        : null;
    ruleForms.set(head, form);
  }
  if (!form) return false;
  const mine = candidate.canonical;
  const depth = candidate.subDepth ?? 1;
  if (mine[0] !== form.canonical[0]) return false;
  const subs = mine.slice(0, depth);
  const ruleSubs = form.canonical.slice(0, form.subDepth);
  if (candidate.unproven) {
    const n = Math.min(subs.length, ruleSubs.length);
    return subs.slice(0, n).every((w, k) => w === ruleSubs[k]);
  }
  if (subs.length !== ruleSubs.length || subs.some((w, k) => w !== ruleSubs[k])) return false;
  const words = new Set(mine.slice(depth));
  // `git push origin +main` forces the push as `-f` does.
  if (mine[0] === "git" && mine[1] === "push" && mine.slice(depth).some((w) => w.startsWith("+"))) words.add("-f");
  return form.canonical.slice(form.subDepth).every((w) => words.has(w));
}

/** The candidate's words after `from`, from each position on, as command texts (`foo -x rm -rf a` → `rm -rf a`, …). */
function tails(candidate: ShellCandidate, from: number): string[] {
  const words = candidate.text.split(" ");
  const out: string[] = [];
  for (let k = from + 1; k < words.length; k++)
    if (!words[k]!.startsWith("-"))
      out.push(
        words
          .slice(k)
          .map((w, i) => (i === 0 ? posix.basename(w) : w))
          .join(" "),
      );
  return out;
}

function plainName(candidate: ShellCandidate): string {
  if (!candidate.name.includes("/")) return candidate.text;
  const rest = candidate.text.slice(candidate.text.indexOf(" ") + 1);
  const base = posix.basename(candidate.name);
  return candidate.text.includes(" ") ? `${base} ${rest}` : base;
}

/**
 * For a command the parser could not pin down: is the rule's command visible in the raw text?
 * Quotes and backslashes are dropped first, so `{r\m,-rf,/}` still shows `rm`.
 */
function visibleInside(content: string, source: string): boolean {
  const head = content.replace(/:\*$/, "").split("*")[0]!.trim();
  const wanted = head.split(/\s+/).filter(Boolean);
  if (wanted.length === 0) return true; // `Bash(*)`: everything
  const tokens = source
    .replace(/\\([\s\S])/g, "$1")
    .replace(/['"]/g, "")
    .split(/[\s;&|(){}<>,`$!=]+/)
    .filter(Boolean)
    .map((t) => posix.basename(t));
  return tokens.some((_, i) => wanted.every((w, k) => tokens[i + k] === w));
}

/** Do the allow rules cover every candidate? */
function covered(rules: CompiledRule[], subject: Subject): { ok: boolean; rule?: string; why?: string } {
  if (rules.length === 0) return { ok: false };
  const bare = rules.find((r) => r.content === undefined);
  switch (subject.kind) {
    case "shell": {
      if (subject.unsafe.length > 0) {
        return {
          ok: false,
          why: `${JSON.stringify(subject.analysis.source)} cannot be proven safe (${subject.unsafe.join("; ")}), so no allow rule covers it`,
        };
      }
      if (bare) return { ok: true, rule: bare.text };
      const used = new Set<string>();
      const missing: string[] = [];
      for (const c of subject.analysis.candidates) {
        if (!c.required) continue;
        // Project code (npm test, make, python -m) needs a rule that names what runs, not only the program;
        // a word the engine does not understand needs a rule whose literal text reaches past it.
        const rule = rules.find(
          (r) =>
            r.command?.test(c.text, c.open) &&
            (!c.projectCode || namesMoreThanProgram(r)) &&
            (!c.unproven || literalWords(r) > c.unproven.at),
        );
        const matching = rules.filter((r) => r.command?.test(c.text, c.open));
        if (rule) used.add(rule.text);
        else if (c.unproven && matching.length > 0 && (!c.projectCode || matching.some(namesMoreThanProgram)))
          missing.push(`${JSON.stringify(c.text)} (${c.unproven.why})`);
        else missing.push(JSON.stringify(c.text) + (c.projectCode ? projectCodeWhy(rules, c) : ""));
      }
      if (missing.length > 0) return { ok: false, why: `no allow rule covers ${missing.join(", ")}` };
      return { ok: true, rule: [...used].join(", ") || undefined };
    }
    case "path": {
      if (bare) return { ok: true, rule: bare.text };
      if (subject.paths.length === 0) return { ok: false };
      const used = new Set<string>();
      for (const p of subject.paths) {
        // Both forms must be covered: a symlink inside an allowed folder may point anywhere.
        const a = rules.find((r) => r.path?.(p.absolute));
        const b = p.real === undefined ? undefined : rules.find((r) => r.path?.(p.real!));
        if (!a || !b)
          return {
            ok: false,
            why: `no allow rule covers ${p.real && p.real !== p.absolute ? `${p.absolute} (it resolves to ${p.real})` : p.absolute}`,
          };
        used.add(a.text).add(b.text);
      }
      return { ok: true, rule: [...used].join(", ") };
    }
    default: {
      if (bare) return { ok: true, rule: bare.text };
      const strings = subject.strings ?? [];
      if (strings.length === 0)
        return {
          ok: false,
          why: "the tool declares no rule content for this call (its permissionRuleContent gives none; a rule naming the tool alone covers it)",
        };
      const used = new Set<string>();
      for (const s of strings) {
        const rule = rules.find((r) => r.command?.test(s));
        if (!rule) return { ok: false, why: `no allow rule covers ${JSON.stringify(s)}` };
        used.add(rule.text);
      }
      return { ok: true, rule: [...used].join(", ") };
    }
  }
}

/**
 * Why no rule covers project code: a rule must name more than the program, and the user's own rule
 * that names only it (`Bash(pytest:*)`, the usual Claude Code rule) is named, so it is not taken
 * for a rule that was never read (trial zg).
 */
function projectCodeWhy(rules: CompiledRule[], c: ShellCandidate): string {
  const only = rules.find((r) => r.command?.test(c.text, c.open));
  const yours = only ? `, and ${only.text} names only the program` : "";
  return ` (${c.projectCode}; a rule must name more than the program${yours}: name what it runs, as the exact command or its first words)`;
}

/** How many words of the rule are literal before its first wildcard (`git log:*` → 2, `*` → 0, an exact rule → all). */
function literalWords(rule: CompiledRule): number {
  const content = rule.content ?? "";
  if (rule.command?.kind === "exact") return Number.POSITIVE_INFINITY;
  const head = content.replace(/:\*$/, "").split(/(?<!\\)\*/)[0]!;
  const words = head.trim().split(/\s+/).filter(Boolean);
  // A word cut by the wildcard (`git lo*`) is not named whole.
  return /\S$/.test(head) && rule.command?.kind === "wildcard" ? Math.max(0, words.length - 1) : words.length;
}

/** `Bash(npm test)`, `Bash(make build:*)`: the rule's fixed part names more than the program. */
function namesMoreThanProgram(rule: CompiledRule): boolean {
  if (rule.command?.kind === "exact") return true;
  const head = (rule.content ?? "").replace(/:\*$/, "").split("*")[0]!.trim().split(/\s+/);
  return head.length >= 2 && head[1] !== "";
}

/** `decision` whose `suggestions` are computed once, when first read. */
export function lazySuggestions<T extends { suggestions: string[] }>(decision: T, compute: () => string[]): T {
  let cached: string[] | undefined;
  Object.defineProperty(decision, "suggestions", {
    get: () => (cached ??= compute()),
    enumerable: true,
    configurable: true,
  });
  return decision;
}

function safely<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** A ToolContext for checkPermissions when the engine runs outside a run (decidePermission). */
export function placeholderContext(place: Place): ToolContext {
  return {
    cwd: place.cwd,
    roots: place.roots,
    abortSignal: new AbortController().signal,
    sessionId: "",
    toolUseId: "",
    env: {},
    logger: quiet,
  };
}
