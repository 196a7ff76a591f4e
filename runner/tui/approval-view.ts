/**
 * What an approval shows: for Write and Edit the diff the call would make to the file (read now,
 * for display only), for Bash the command, for other tools their arguments one per line — never a
 * JSON dump — and the question, naming the rule that "always" would add.
 */
import { realpathSync } from "node:fs";
import { readRegularFileSync } from "../../plugins/_kits/process/regular-file-sync";
import { resolve } from "node:path";
import { describeRule } from "../describe-rule";
import { visibleExactly } from "../render";
import { changeCounts, diffLines, hunks } from "./diff";
import { shortPath } from "./tool-view";
import type { Theme } from "./theme";

/** Lines of a diff or a command shown before "… N more lines". */
const MAX_BODY = 40;
const MAX_FILE = 2 * 1024 * 1024;

/**
 * The file's text now, or undefined (missing, not a regular file, too large to diff): read
 * as the file tools read, so a FIFO the agent put where it asks to write cannot hang the question.
 */
function currentText(path: string): string | undefined {
  try {
    // A link the call writes through shows the file it leads to (as the file tools write there).
    const read = readRegularFileSync(realpathSync(path), MAX_FILE);
    return "text" in read ? read.text : undefined;
  } catch {
    return undefined;
  }
}

/** The file as an Edit would leave it; undefined when old_string is not in it (the tool will say so). */
function edited(text: string, input: Record<string, unknown>): string | undefined {
  const from = input.old_string;
  const to = input.new_string;
  if (typeof from !== "string" || typeof to !== "string" || from === "" || !text.includes(from)) return undefined;
  return input.replace_all === true ? text.split(from).join(to) : text.replace(from, () => to);
}

function cap(lines: string[], theme: Theme): string[] {
  if (lines.length <= MAX_BODY) return lines;
  return [...lines.slice(0, MAX_BODY), theme.dim(`… ${lines.length - MAX_BODY} more lines`)];
}

/** A diff as numbered, coloured lines. */
function diffBody(before: string, after: string, theme: Theme): { lines: string[]; added: number; removed: number } {
  const all = diffLines(before, after);
  const lines = hunks(all).map((l) => {
    if (l === null) return theme.dim("   ⋮");
    const n = String(l.line).padStart(4);
    const text = visibleExactly(l.text);
    if (l.kind === "+") return theme.added(`${n} + ${text}`);
    if (l.kind === "-") return theme.removed(`${n} - ${text}`);
    return theme.dim(`${n}   ${text}`);
  });
  return { lines, ...changeCounts(all) };
}

/**
 * The lines shown above an approval question: a heading and the body (diff, command, arguments).
 * Every piece of the call (and of the file it changes) is shown by `visibleExactly`: a `\r`, an
 * escape sequence or a bidi override in a command would otherwise show the user another one.
 */
export function approvalBody(toolName: string, input: Record<string, unknown>, cwd: string, theme: Theme): string[] {
  const path = typeof input.file_path === "string" ? input.file_path : undefined;
  if (toolName === "Write" && path && typeof input.content === "string") {
    const before = currentText(resolve(cwd, path));
    const { lines, added, removed } = diffBody(before ?? "", input.content, theme);
    const what = before === undefined ? `new file, ${added} line${added === 1 ? "" : "s"}` : `+${added} −${removed}`;
    return [
      theme.bold(`Write ${visibleExactly(shortPath(resolve(cwd, path), cwd))}`) + theme.dim(` (${what})`),
      ...cap(lines, theme),
    ];
  }
  if (toolName === "Edit" && path) {
    const before = currentText(resolve(cwd, path));
    const after = before === undefined ? undefined : edited(before, input);
    // Without the file (or the text in it) the diff is of the two strings, numbered from 1.
    const { lines, added, removed } =
      after !== undefined
        ? diffBody(before!, after, theme)
        : diffBody(String(input.old_string ?? ""), String(input.new_string ?? ""), theme);
    const all = input.replace_all === true ? ", every occurrence" : "";
    return [
      theme.bold(`Edit ${visibleExactly(shortPath(resolve(cwd, path), cwd))}`) +
        theme.dim(` (+${added} −${removed}${all})`),
      ...cap(lines, theme),
    ];
  }
  if (toolName === "apply_patch" && typeof input.input === "string") {
    // The patch itself is the diff: its file headers, then its lines coloured by kind.
    const lines = input.input
      .split("\n")
      .filter((l) => !/^\*\*\* (Begin|End) Patch\s*$/.test(l))
      .map((l) => visibleExactly(l))
      .map((l) =>
        l.startsWith("***")
          ? theme.bold(l)
          : l.startsWith("+")
            ? theme.added(l)
            : l.startsWith("-")
              ? theme.removed(l)
              : theme.dim(l),
      );
    return [theme.bold("apply_patch"), ...cap(lines, theme)];
  }
  if (toolName === "Bash" && typeof input.command === "string") {
    const head =
      theme.bold("Bash") +
      (typeof input.description === "string" && input.description
        ? theme.dim(` (${visibleExactly(input.description)})`)
        : "");
    return [
      head,
      ...cap(
        input.command.split("\n").map((l, i) => `${i === 0 ? theme.dim("$") : " "} ${visibleExactly(l)}`),
        theme,
      ),
    ];
  }
  const fields = Object.entries(input).map(([k, v]) => {
    let s = typeof v === "string" ? v : (JSON.stringify(v) ?? String(v));
    s = s.replace(/\n/g, " ⏎ ");
    if (s.length > 120) s = `${s.slice(0, 119)}…`;
    return `${theme.dim(`${visibleExactly(k)}:`)} ${visibleExactly(s)}`;
  });
  return [theme.bold(visibleExactly(toolName)), ...cap(fields, theme)];
}

/** `Allow Bash? [y]es / [n]o / [a]lways allow Bash(npm test) (exactly this command) this session`. */
export function approvalQuestion(toolName: string, input: Record<string, unknown>, rules: readonly string[]): string {
  const always =
    rules.length > 0 ? ` / [a]lways allow ${rules.map((r) => describeRule(r, input)).join(", ")} this session` : "";
  return visibleExactly(`Allow ${toolName}? [y]es / [n]o${always}`);
}
