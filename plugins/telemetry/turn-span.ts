/**
 * The turn's span: `turn.system` runs once per turn, first thing, so the span opens there (first
 * tap) and closes at `turn.end` with the turn's tool-call count and stop reason.
 */
import type { RunContext, SystemSection, TurnInfo } from "../../src/index";
import { ATTR } from "./attributes";
import { parentContext } from "./spans";
import { spansOf, type TelemetryContext, traced } from "./state";

/** Open the turn's span under the run's (ending a turn span left open). */
export function openTurnSpan(context: TelemetryContext, sections: SystemSection[], run: RunContext): SystemSection[] {
  const t = traced(context, run);
  if (!t) return sections;
  const [otel, spans] = t;
  if (spans.turn) spans.turn.end();
  const turn = run.numTurns + 1;
  spans.turn = spans.tracer.startSpan(
    "turn",
    { attributes: { [ATTR.turn]: turn } },
    parentContext(otel, spans, spans.span),
  );
  return sections;
}

/** Close the turn's span with what the turn did. */
export function closeTurnSpan(context: TelemetryContext, info: TurnInfo, run: RunContext): void {
  const spans = spansOf(context, run);
  if (!spans?.turn) return;
  spans.turn.setAttributes({
    [ATTR.toolCalls]: info.toolResults.length,
    ...(info.assistant.stopReason ? { [ATTR.stopReason]: info.assistant.stopReason } : {}),
  });
  spans.turn.end();
  spans.turn = undefined;
}
