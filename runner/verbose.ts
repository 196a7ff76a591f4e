/**
 * `--verbose`: what the kernel does, on stderr — each hook's taps in run order once the kernel
 * is ready, then every kernel event (messages by type, registry overrides, plugin errors) but
 * warnings, which are on stderr already. This is where the kernel's own words (hooks, taps) belong; the normal output
 * speaks of tools, models and files.
 */
import type { Plugin } from "../src/plugin";
import type { KernelEvent } from "../src/hooks";
import { describeError } from "../src/errors";
import { redactText, secretsOf, secretsOfRun } from "../src/redact";

const NAME = "ubiquity:runner-verbose";

function describeEvent(event: KernelEvent): string {
  switch (event.type) {
    case "message": {
      const m = event.message;
      const detail =
        m.type === "tool_use"
          ? ` ${m.toolName} ${m.toolUseId}`
          : m.type === "tool_result"
            ? ` ${m.toolName} ${m.output.isError ? "error" : "ok"}`
            : m.type === "system" || m.type === "result"
              ? ` ${m.subtype}`
              : "";
      // A failed result in the kernel's own words (the normal output names only the plugin).
      const failure = m.type === "result" && m.isError ? `: ${m.result}` : "";
      return `message ${m.type}${detail}${m.agentId ? ` (agent ${m.agentId})` : ""}${failure}`;
    }
    case "registry.override":
      return `registry ${event.registry}: ${event.name} from ${event.winner} replaces ${event.loser}'s`;
    case "plugin.error":
      return `plugin ${event.plugin} failed in hook ${event.hook}: ${describeError(event.error)}`;
    case "sandbox.violation":
      return `sandbox refused a ${event.kind}${event.source ? ` by ${event.source}` : ""}: ${event.detail}`;
    case "sessions.note":
      return `transcript note ${event.kind} for session ${event.sessionId}`;
    case "task":
      return `background ${event.task.kind} ${event.task.id} ${event.event}${event.event === "output" ? ` (${event.text?.length ?? 0} characters)` : event.event === "ended" ? `: ${event.task.outcome}` : `: ${event.task.description}`}`;
    default:
      // A third-party plugin's event: its type is all this knows of it.
      return `event ${(event as { type: string }).type}`;
  }
}

/** The plugin `--verbose` adds: writes lines through `write` (stderr). */
export function verbosePlugin(write: (line: string) => void): Plugin {
  return {
    name: NAME,
    apply(kernel) {
      write(`[verbose] plugins: ${kernel.plugins.map((p) => p.plugin.name).join(", ")}`);
      kernel.hooks.kernel.ready.tap(NAME, (k) => {
        for (const [hook, taps] of Object.entries(k.taps())) {
          if (taps.length)
            write(
              `[verbose] hook ${hook}: ${taps.map((t) => (t.stage ? `${t.plugin}@${t.stage}` : t.plugin)).join(" → ")}`,
            );
        }
      });
      // Warnings are not echoed: each is already on stderr once (the plugin's logger line, or the
      // runner's line for the sandbox's), and --verbose printed every one twice.
      // Every line masked with the run's secrets: events carry what plugins saw (a command's output
      // line in a sandbox refusal, a plugin's error), unmasked, and --verbose goes to CI logs (red
      // team zl, ZL3).
      kernel.hooks.event.tap(NAME, (event, run) => {
        if (event.type === "warning") return;
        const secrets = run ? secretsOfRun(run) : secretsOf(kernel.options);
        write(`[verbose] ${redactText(describeEvent(event), secrets)}`);
      });
    },
  };
}
