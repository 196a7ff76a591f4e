/**
 * The scripted model of the attacks run through the bin: a fake provider (src/testing's servers)
 * answers each request with the next call, one per request, then "done"; and the tool results a
 * stream-json run printed. No hooks, no state: the attack files import it.
 */
import type { FakeTurn, RecordedRequest } from "../../src/testing/index";

/** A Bash command, or any tool call. */
export type AttackCall = string | { name: string; input: Record<string, unknown> };

/** A provider that asks for each call in turn (a string is a Bash command), one per request, then answers "done". */
export function attacker(calls: AttackCall[]): (request: RecordedRequest) => FakeTurn {
  return (request) => {
    const seen = JSON.stringify(request.body);
    const next = calls.findIndex((_, i) => !seen.includes(`"call_${i}"`));
    if (next === -1) return "done";
    const c = calls[next]!;
    const call = typeof c === "string" ? { name: "Bash", input: { command: c } } : c;
    return { toolCalls: [{ id: `call_${next}`, name: call.name, input: call.input }] };
  };
}

/** Tool results of a stream-json run, in order. */
export function toolResults(stdout: string): { content: string; isError: boolean }[] {
  return stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { type: string; output?: { content: unknown; isError: boolean } })
    .filter((m) => m.type === "tool_result")
    .map((m) => ({ content: String(m.output!.content), isError: m.output!.isError }));
}
