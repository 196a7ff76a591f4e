import { randomUUID } from "node:crypto";
import { createKernel, type Kernel } from "./kernel";
import { createRun } from "./run";
import { driveRun } from "./loop";
import { Channel } from "./channel";
import { stamp, emptyUsage, type Message } from "./messages";
import type { Preset } from "./preset";
import type { UbiquityConfig } from "./config/schema";
import { describeError } from "./errors";
import { redactText, secretsOf } from "./redact";
import { defaultLogger } from "./logger";

/** Options of `summon()`: every run option plus the kernel fields `presets`, `plugins`, `disable`. */
export type SummonOptions = UbiquityConfig;

/**
 * Run an agent on `prompt` and yield its messages: `system/init` first, `result` last — also
 * when the run fails. Only API misuse (a non-string prompt) throws. `defaults` are the presets
 * used when `options.presets` is not given (the facade passes the default preset).
 */
export async function* runSummon(prompt: string, options: SummonOptions, defaults: () => Promise<Preset[]>): AsyncGenerator<Message> {
  const channel = new Channel<Message>();
  const controller = new AbortController();
  const external = options.abortSignal;
  const onAbort = () => controller.abort(external?.reason);
  if (external?.aborted) controller.abort(external.reason);
  else external?.addEventListener("abort", onAbort, { once: true });

  let kernel: Kernel | undefined;
  let failure: unknown;
  try {
    const presets = options.presets ?? (await defaults());
    kernel = createKernel({ ...options, presets });
  } catch (error) {
    failure = error;
  }

  const done = (async () => {
    try {
      if (!kernel) {
        yieldBootFailure(channel, prompt, options, failure);
        return;
      }
      const run = createRun({ kernel, abortSignal: controller.signal, sink: (m) => channel.push(m) });
      await driveRun(run, prompt);
    } catch (error) {
      // driveRun never throws; this is a last guard so the stream still ends with a result.
      yieldBootFailure(channel, prompt, options, error);
    } finally {
      try {
        await kernel?.dispose();
      } catch (error) {
        (options.logger ?? defaultLogger()).error("kernel.dispose failed:", describeError(error));
      }
      external?.removeEventListener("abort", onAbort);
      channel.close();
    }
  })();

  try {
    for await (const message of channel) yield message;
  } finally {
    // The consumer stopped early (break/return): end the run rather than leave it running.
    if (!controller.signal.aborted) controller.abort(new Error("the consumer stopped reading"));
    await done;
  }
}

/** The messages of a run that could not even build its kernel (a bad option, a broken plugin). */
function yieldBootFailure(channel: Channel<Message>, prompt: string, options: SummonOptions, error: unknown) {
  void prompt;
  const sessionId = randomUUID();
  const model = typeof options.model === "string" ? options.model : options.model ? `${options.model.provider}:${options.model.modelId}` : null;
  channel.push(
    stamp(
      { type: "system", subtype: "init", model, cwd: options.cwd ?? process.cwd(), tools: [], permissionMode: typeof options.permissionMode === "string" ? options.permissionMode : "default", plugins: [], extra: {} },
      sessionId,
    ) as Message,
  );
  channel.push(
    stamp(
      {
        type: "result",
        subtype: "error_during_execution",
        result: redactText(describeError(error), secretsOf(options)),
        isError: true,
        numTurns: 0,
        durationMs: 0,
        usage: emptyUsage(),
        totalCostUsd: null,
        permissionDenials: [],
        modelUsage: {},
        stopReason: null,
      },
      sessionId,
    ) as Message,
  );
}
