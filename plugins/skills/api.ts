/**
 * `getSkillsApi(kernel)`: the loaded skills, and per-run narrowing for the agents feature. A
 * subagent inherits its parent's skills and may be narrowed to a subset, never widened: each
 * run's set is the loaded skills cut by its own narrowing and every ancestor's.
 */
import type { Kernel, RunContext } from "../../src/index";
import type { Skill } from "./skill";

/** What other plugins can do with a kernel's skills. */
export interface SkillsApi {
  /** Every loaded skill, sorted by name (empty before `kernel.ready`). */
  skills(): readonly Skill[];
  /** Limit `run` (a subagent) to the skills named; undefined keeps what it inherits, [] grants none. */
  narrow(run: RunContext, names: readonly string[] | undefined): void;
  /** The skills `run` may load. */
  skillsFor(run: RunContext): readonly Skill[];
}

const apis = new WeakMap<Kernel, SkillsApi & { load(skills: Skill[]): void }>();

/** The skills API of `kernel`, or undefined when the `ubiquity:skills` plugin is not in it. */
export function getSkillsApi(kernel: Kernel): SkillsApi | undefined {
  return apis.get(kernel);
}

/** The part of the skills plugin's per-run state the API keeps: the run's own narrowing. */
export interface SkillsRunState {
  narrowed?: ReadonlySet<string>;
}

/**
 * Create and register the API of a kernel (the skills plugin does this in `apply`); `stateOf` is
 * the plugin's per-run state (`context.run`).
 */
export function createSkillsApi(
  kernel: Kernel,
  stateOf: (run: RunContext) => SkillsRunState,
): SkillsApi & { load(skills: Skill[]): void } {
  let loaded: readonly Skill[] = [];
  const api = {
    load(skills: Skill[]) {
      loaded = Object.freeze([...skills]);
    },
    skills: () => loaded,
    narrow(run: RunContext, names: readonly string[] | undefined) {
      if (names) stateOf(run).narrowed = new Set(names);
    },
    skillsFor(run: RunContext) {
      let list = loaded;
      for (let r: RunContext | undefined = run; r; r = r.parent) {
        const allowed = stateOf(r).narrowed;
        if (allowed) list = list.filter((s) => allowed.has(s.name));
      }
      return list;
    },
  };
  apis.set(kernel, api);
  return api;
}

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
