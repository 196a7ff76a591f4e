/**
 * The one deliberate edge from the kernel to the product (DESIGN §5): `summon()` and the
 * runner bind to the default preset when no presets are given; and the public helpers the
 * package entry re-exports from built-in plugins. Loaded lazily, so importing
 * `ubiquity` stays cheap and the kernel stays feature-free.
 */
import type { Preset } from "./preset";
import type { Message } from "./messages";
import { runSummon, type SummonOptions } from "./summon";

/** The default preset (every built-in plugin, in canonical order). */
export async function defaultPreset(): Promise<Preset> {
  return (await import("../presets/default")).default;
}

/**
 * Run an agent: yields `system/init` first, then the conversation, and always a `result` last.
 * With no `presets` the default preset applies; `plugins` are added after it (a same-name plugin
 * replaces a built-in in place).
 */
export function summon(prompt: string, options: SummonOptions = {}): AsyncGenerator<Message> {
  if (typeof prompt !== "string") throw new TypeError(`summon(prompt, options): prompt must be a string, got ${typeof prompt}`);
  if (typeof options !== "object" || options === null) throw new TypeError("summon(prompt, options): options must be an object");
  return runSummon(prompt, options, async () => [await defaultPreset()]);
}

// Sessions: the store is public API.
export { SessionStore, SessionNotFoundError } from "../plugins/sessions/store";
export type { SessionInfo, SessionStoreOptions, StoredSession, ForkOptions } from "../plugins/sessions/store";
export type { TranscriptRecord, PersistedMessage } from "../plugins/sessions/records";

// The model layer's public helpers live in their plugins; these lines are the package entry's
// only view of them (the modules they come from import no provider package).
export { registerAlias, openaiCompatible, type OpenAICompatibleSettings } from "../plugins/model/index";
export { registerPricing, registerContextWindow } from "../plugins/pricing/index";

// The built-in tool suite, for `tools: [...builtinTools(), mine]`.
export { builtinTools } from "../plugins/tools/index";

// Events built-in plugins add to the `event` firehose (their types augment `PluginEvents`).
export type { SandboxViolationEvent } from "../plugins/sandbox/events";
