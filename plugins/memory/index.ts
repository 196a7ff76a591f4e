/**
 * `ubiquity:memory`: memory files (UBIQUITY.md) — standing instructions the caller opted into
 * with `memorySources` and `memory`. Read once at `kernel.ready`; rendered at SYSTEM_STAGE.MEMORY,
 * after the run sections and right before `appendSystemPrompt`, for every run of the kernel
 * (subagents inherit it). With no memory the system prompt is exactly what it was without the plugin.
 */
import { COMPAT_TOOLS, compatSources, permittedSources, warn, warnOnce } from "../_kits/sources/index";
import { homedir } from "node:os";
import { basename } from "node:path";
import { SYSTEM_STAGE, type Kernel, type RunContext, type SystemSection } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { loadMemory, type MemoryFile } from "./load";
import { renderMemory } from "./render";
import type { ProjectPlace } from "../../loader/index";
import { isProjectFileTrusted, pathExists, TrustPins } from "../../loader/index";
import { memoryCandidates, type MemoryCandidate } from "./sources";
import { includedFiles } from "./pinned-includes";
import { memoryOptions } from "./options";
import { getHooksApi } from "../hooks/index";
import { getSettingsApi } from "../settings/api";
import { getPermissionsApi } from "../permissions/api";
import { forgetCompactedRules, withScopedRules } from "./scoped-rules";

export { loadMemory, cutContent, MAX_INCLUDE_DEPTH, MAX_MEMORY_CHARS, TEXT_EXTENSIONS, type MemoryFile } from "./load";
export { findIncludes, lineReferences, blankInlineCode } from "./includes";
export { memoryCandidates, rootToCwd, type MemorySource, type MemoryCandidate } from "./sources";
export { renderMemory, MEMORY_HEADER } from "./render";

/** The plugin's name. */
export const NAME = "ubiquity:memory";

/** What other code can ask the plugin about a kernel. */
export interface MemoryApi {
  /** The loaded files, in prompt order (empty before `kernel.ready`). */
  files(): readonly MemoryFile[];
}

const apis = new WeakMap<Kernel, MemoryApi>();

/** The memory plugin's API on a kernel (undefined when the plugin is not loaded). */
export function getMemoryApi(kernel: Kernel): MemoryApi | undefined {
  return apis.get(kernel);
}

/** The memory plugin. */
export const memoryPlugin = definePlugin({
  name: NAME,
  options: memoryOptions,
  // The loader's own candidates (every folder from the root down to the cwd), so what trust approves is what is read.
  // Another tool's files (CLAUDE.md, AGENTS.md) too: they apply under `compat`, and trust must be able to approve them.
  projectFiles: ({ cwd, home }: ProjectPlace) =>
    memoryCandidates(
      { memorySources: ["project", "local"], compat: COMPAT_TOOLS, compatSources: ["project", "local"] },
      { cwd, home },
    )
      .filter((c) => pathExists(c.path))
      .flatMap(({ path, noIncludes, tool }) => {
        // CLAUDE.md and AGENTS.md apply only under their compat: trusting the folder alone does not read them.
        const under = tool ? { compat: tool } : {};
        const when = tool ? ` (with compat: ["${tool}"])` : "";
        return [
          { path, kind: "memory", effect: `adds instructions to the system prompt${when}`, ...under },
          ...(noIncludes ? [] : includedFiles(path, cwd, home)).map((included) => ({
            path: included,
            kind: "memory",
            effect: `included by ${basename(path)}: adds instructions to the system prompt${when}`,
            ...under,
          })),
        ];
      }),
  apply(kernel, context) {
    let files: readonly MemoryFile[] = [];
    apis.set(kernel, { files: () => files });
    // Per run (a subagent may have deny rules of its own), redone when rules are added.
    const sections = new WeakMap<RunContext, { version: number; section: SystemSection | undefined }>();
    const sectionOf = (run: RunContext): SystemSection | undefined => {
      const permissions = getPermissionsApi(kernel);
      const hit = sections.get(run);
      if (hit?.version === permissions.version) return hit.section;
      // Red-team fix: a memory file or an `@path` include reaches the model as a Read would, so a
      // Read deny rule withholds it (deny rules always apply, trusted folder or not); so does an
      // ask rule, since nobody is asked before the prompt is sent (red team i, I2).
      const shown = files.filter((file) => {
        if (file.scope) return false; // a path-scoped rule comes with the first file it matches
        const rule = permissions.readWithheld(run, file.path);
        if (rule)
          warnOnce(
            kernel,
            NAME,
            `did not put the memory file ${file.path} in the prompt: the rule ${rule} forbids or asks before reading it`,
          );
        return !rule;
      });
      const text = renderMemory(shown);
      const section = text ? { id: "memory", text } : undefined;
      sections.set(run, { version: permissions.version, section });
      return section;
    };

    kernel.hooks.kernel.ready.tapPromise(NAME, async () => {
      const { cwd, memory, trust, memorySources: wanted, compat } = context.options;
      // Under approved digests each project or local file is checked by itself (the sources span many folders).
      const memorySources = TrustPins.is(trust) ? wanted : permittedSources(wanted, trust);
      const theirs = compatSources(wanted, compat);
      const compatWanted = TrustPins.is(trust) ? theirs : permittedSources(theirs, trust);
      const admit = (c: MemoryCandidate) => {
        if (c.source === "user" || c.source === "memory" || isProjectFileTrusted(trust, c.path)) return true;
        if (pathExists(c.path))
          kernel.logger.debug(`[${NAME}] ${c.path}: new or changed since its folder was trusted; not read`);
        return false;
      };
      if (!memory?.length && !memorySources?.length && !compatWanted?.length) return;
      files = await loadMemory(
        {
          memory,
          memorySources,
          compat,
          compatSources: compatWanted,
          codexProjectDocBytes: getSettingsApi(kernel).codexProjectDocBytes,
        },
        { cwd, home: homedir() },
        (message) => warn(kernel, NAME, message),
        (message) => kernel.logger.debug(`[${NAME}] ${message}`),
        admit,
        // An include of a project or local file is a project file too: under pins it applies only while approved.
        (path, source) => source === "user" || source === "memory" || isProjectFileTrusted(trust, path),
      );
    });

    // Claude Code's InstructionsLoaded, once per session for each file in the prompt (an include names its parent).
    kernel.hooks.session.start.tapPromise(NAME, async (run) => {
      const hooks = getHooksApi(kernel);
      if (run.parent || !hooks?.has("InstructionsLoaded", run)) return;
      for (const file of files)
        if (!file.scope) await hooks.fire("InstructionsLoaded", run, { extra: instructionsLoaded(file) });
    });

    // Path-scoped rules join the conversation with the first tool result of a file they match.
    const delivered = new WeakMap<RunContext, Set<string>>();
    kernel.hooks.tool.afterCall.tapPromise(NAME, async (output, call) => {
      const scoped = files.filter((f) => f.scope);
      if (!scoped.length) return output;
      const permissions = getPermissionsApi(kernel);
      const withheld = (run: RunContext, path: string) => {
        const rule = permissions.readWithheld(run, path);
        if (rule)
          warnOnce(kernel, NAME, `did not add the rule ${path}: the rule ${rule} forbids or asks before reading it`);
        return rule !== undefined;
      };
      const { output: out, added } = withScopedRules(output, call, scoped, delivered, withheld);
      const hooks = getHooksApi(kernel);
      if (added.length && hooks?.has("InstructionsLoaded", call.run))
        for (const file of added)
          await hooks.fire("InstructionsLoaded", call.run, {
            extra: { ...instructionsLoaded(file), loadReason: file.includedBy ? "include" : "path_glob_match" },
          });
      return out;
    });
    // A rule whose reminder a compaction took out of the history comes again with its next file.
    kernel.hooks.context.compacted.tap(NAME, (_info, run) =>
      forgetCompactedRules(
        run,
        files.filter((f) => f.scope),
        delivered,
      ),
    );

    kernel.hooks.turn.system.tap({ name: NAME, stage: SYSTEM_STAGE.MEMORY }, (list: SystemSection[], run) => {
      const section = files.length ? sectionOf(run) : undefined;
      return section ? [...list, section] : list;
    });
  },
});

/** Claude Code's memory types; files the caller named (`memory`) are the user's own. */
const MEMORY_TYPES = { user: "User", memory: "User", project: "Project", local: "Local" } as const;

/** InstructionsLoaded's fields for one loaded file. */
function instructionsLoaded(file: MemoryFile): Record<string, unknown> {
  return {
    filePath: file.path,
    memoryType: MEMORY_TYPES[file.source],
    loadReason: file.includedBy ? "include" : "session_start",
    ...(file.includedBy ? { parentFilePath: file.includedBy } : {}),
  };
}

export default memoryPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
