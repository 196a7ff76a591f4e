/**
 * The plugin `ubiquity acp` adds to each session's run: the file tools read and write through
 * the editor when it offers `fs/read_text_file` / `fs/write_text_file` (its unsaved buffers are
 * the truth), and Write and Edit calls keep the file's text before and after, for the diff the
 * editor shows. Only permitted paths are read for a diff (the kit's own check), and only once the
 * permission vote did not deny the call: a file a rule keeps from the agent is not read for it.
 */
import type { Plugin } from "../../src/plugin";
import type { ToolCall } from "../../src/hooks";
import {
  hostFilesOf,
  openJudged,
  resolvePermitted,
  setHostFiles,
  type HostFiles,
} from "../../plugins/_kits/file-tools/index";

const NAME = "ubiquity:acp";

/** The largest file whose text goes into a diff. */
const MAX_DIFF_CHARS = 256 * 1024;

/** A Write or Edit call's file: where, and its text before (null: a new file) and after. */
export interface FileDiff {
  path: string;
  oldText: string | null;
  newText?: string;
}

/**
 * The text of `path` now (through the editor when it reads), null when it does not exist, is no
 * regular file or is too big to show. From the disk it is read as the file tools read: opened once,
 * no link followed, without blocking, a regular file only. A read by name blocked for good on a
 * FIFO the agent made where it then asked to Write, inside the permission vote: no question, and
 * the prompt never ended (red team zf, ZF4).
 */
async function textOf(call: ToolCall, path: string): Promise<string | null> {
  const host = hostFilesOf(call.context);
  const fromDisk = async () => {
    const opened = await openJudged(path, path);
    if (!opened) return null;
    try {
      // A UTF-16 code unit per byte at most: a larger file has more characters than a diff shows.
      return opened.info.size > MAX_DIFF_CHARS * 4 ? null : (await opened.handle.readFile()).toString("utf8");
    } finally {
      await opened.handle.close();
    }
  };
  const text = await (host?.readText
    ? host.readText(path, call.context.abortSignal).catch(() => fromDisk())
    : fromDisk()
  ).catch(() => null);
  return text !== null && text.length <= MAX_DIFF_CHARS ? text : null;
}

/**
 * The run's file access through the editor, the diffs of its Write and Edit calls by tool use id,
 * and `blocked`, told the reason when a tap refuses the session's own prompt (a hook, a command
 * missing its argument): that ending is an answer for the user to read, not a failure of the agent.
 */
export function editorPlugin(
  host: HostFiles | undefined,
  diffs: Map<string, FileDiff>,
  blocked: (reason: string) => void = () => {},
): Plugin {
  return {
    name: NAME,
    apply(kernel) {
      if (host) kernel.hooks.session.start.tap(NAME, (run) => setHostFiles(run, host));
      // Last: after every tap that may refuse the prompt.
      kernel.hooks.turn.prompt.tap({ name: NAME, order: "last" }, (prompt, run) => {
        if (prompt.blocked !== undefined && prompt.source === "user" && !run.parent) blocked(prompt.blocked);
        return prompt;
      });
      // After the votes (and the input they judged), before the question: what the question shows is what will change.
      // Last (after the rules and the observers): a denied call reads nothing.
      kernel.hooks.tool.permission.tapPromise({ name: NAME, order: "last" }, async (verdict, call) => {
        // A file-editing tool (its declared kind) with one file_path: Write and Edit.
        const input = (verdict.behavior === "allow" && verdict.updatedInput) || call.input;
        if (call.tool.kind !== "edit" || typeof input.file_path !== "string" || verdict.behavior === "deny")
          return verdict;
        const { real } = await resolvePermitted(call.context, String(input.file_path ?? "")).catch(() => ({
          real: undefined,
        }));
        if (real) diffs.set(call.toolUseId, { path: real, oldText: await textOf(call, real) });
        return verdict;
      });
      kernel.hooks.tool.afterCall.tapPromise(NAME, async (output, call) => {
        const diff = diffs.get(call.toolUseId);
        if (diff && !output.isError) diff.newText = (await textOf(call, diff.path)) ?? undefined;
        return output;
      });
    },
  };
}

/** What an Edit will make of `oldText` (for the approval question; the tool's own result is what counts). */
export function editedText(oldText: string | null, input: Record<string, unknown>): string | undefined {
  if (
    oldText === null ||
    typeof input.old_string !== "string" ||
    typeof input.new_string !== "string" ||
    !input.old_string
  )
    return undefined;
  return input.replace_all === true
    ? oldText.split(input.old_string).join(input.new_string)
    : oldText.replace(input.old_string, () => input.new_string as string);
}
