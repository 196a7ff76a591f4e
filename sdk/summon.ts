import { randomUUID } from "node:crypto";
import type { LanguageModel } from "ai";
import {
  ConfigError,
  createKernel,
  createRun,
  defaultLogger,
  describeError,
  driveRun,
  emptyUsage,
  modelLabel,
  redactText,
  resolveModel,
  secretsOf,
  stamp,
} from "../src/index";
import { UsageError } from "../loader/index";
import type { Kernel, Message, Preset, RunContext, UbiquityConfig } from "../src/index";
import { LiveInput, type UserInput } from "./live";
import { Channel } from "./channel";
import { agentSdkHints } from "./agent-sdk-names";

/** Options of `summon()`: every run option plus the kernel fields `presets`, `plugins`, `disable`. */
export type SummonOptions = UbiquityConfig;

/** What a running `summon()` can be told (the kernel's controls; the facade adds what plugins offer). */
export interface SessionControls {
  /** Stop the work in progress (model stream and tool calls); a live session then takes its next message. */
  interrupt(): Promise<void>;
  /** Send the next request to `spec`, resolved through `model.resolve`; rejects when no provider knows it or the session has ended. */
  setModel(spec: string | Exclude<LanguageModel, string>): Promise<void>;
  /** End the session now: the input ends, the work in progress is aborted, and the stream ends with a `result`. */
  close(): void;
}

/** A running `summon()`: its messages and controls; `started()` starts it if need be and gives its run once `system/init` is out (undefined if it never started). */
export interface SummonSession {
  stream: AsyncGenerator<Message> & SessionControls;
  started(): Promise<RunContext | undefined>;
}

/**
 * Run an agent on `prompt` and yield its messages: `system/init` first, `result` last — also
 * when the run fails. An async iterable prompt is a live session (see `LiveInput`): open while
 * the iterable is. `defaults` are the presets used when `options.presets` is not given (the
 * facade passes the default preset).
 */
export function runSummon(
  prompt: string | AsyncIterable<UserInput>,
  options: SummonOptions,
  defaults: () => Promise<Preset[]>,
): SummonSession {
  const live: Live = {
    controller: new AbortController(),
    input: new LiveInput(),
    channel: new Channel<Message>(),
    begin: () => {},
  };
  const started = new Promise<RunContext | undefined>((resolve) => (live.begin = resolve));
  let done: Promise<void> | undefined;
  // The work starts at the first read or the first control that needs the run, whichever comes first.
  const launch = () => (done ??= work(prompt, options, defaults, live));
  const { controller, input } = live;
  async function* read(): AsyncGenerator<Message> {
    const finished = launch();
    try {
      for await (const message of live.channel) yield message;
    } finally {
      // The consumer stopped early (break/return): end the run rather than leave it running.
      if (!controller.signal.aborted) controller.abort(new Error("the consumer stopped reading"));
      input.close();
      await finished;
    }
  }
  const stream = Object.assign(read(), {
    interrupt: async () => input.interrupt(),
    async setModel(spec: string | Exclude<LanguageModel, string>) {
      void launch();
      const run = await started;
      if (!run || controller.signal.aborted) throw new UsageError("setModel: the session has ended");
      const model = await resolveModel(run, spec, "main");
      run.model = model;
      run.modelLabel = modelLabel(model, run.kernel);
    },
    close() {
      input.close();
      if (!controller.signal.aborted) controller.abort(new Error("the session was closed"));
    },
  });
  return { stream, started: () => (void launch(), started) };
}

/** The shared state of one `summon()`: its abort, its input, the stream it fills, and who waits for its run. */
interface Live {
  controller: AbortController;
  input: LiveInput;
  channel: Channel<Message>;
  begin: (run: RunContext | undefined) => void;
}

/** Build the kernel and drive the run into the channel; never throws. */
async function work(
  prompt: string | AsyncIterable<UserInput>,
  options: SummonOptions,
  defaults: () => Promise<Preset[]>,
  { controller, input, channel, begin }: Live,
): Promise<void> {
  const external = options.abortSignal;
  const onAbort = () => controller.abort(external?.reason);
  if (external?.aborted) controller.abort(external.reason);
  else external?.addEventListener("abort", onAbort, { once: true });
  let kernel: Kernel | undefined;
  let stop = () => {};
  try {
    kernel = await buildKernel(options, defaults);
    const sink = (m: Message) => {
      channel.push(m);
      if (m.type === "system" && m.subtype === "init" && m.agentId === undefined) begin(run);
    };
    const run = createRun({ kernel, abortSignal: controller.signal, sink, input });
    if (typeof prompt === "string") input.close();
    else stop = pump(prompt, input);
    await driveRun(run, typeof prompt === "string" ? prompt : undefined);
  } catch (error) {
    // A kernel that could not be built (a bad option, a broken plugin); driveRun itself never throws.
    yieldBootFailure(channel, options, error);
  } finally {
    begin(undefined);
    stop();
    input.close();
    try {
      await kernel?.dispose();
    } catch (error) {
      (options.logger ?? defaultLogger()).error("kernel.dispose failed:", describeError(error));
    }
    external?.removeEventListener("abort", onAbort);
    channel.close();
  }
}

/**
 * The run's kernel. With presets of its own, a config may set an option of a built-in plugin it
 * left out; the kernel names that plugin in the error only if the plugin was made in this
 * process. So on an unknown key the default preset is loaded (making every built-in) and the
 * kernel is built again, to fail in those words: what the runner, which loads it anyway, says.
 */
async function buildKernel(options: SummonOptions, defaults: () => Promise<Preset[]>): Promise<Kernel> {
  const config = { ...options, presets: options.presets ?? (await defaults()) };
  try {
    try {
      return createKernel(config);
    } catch (error) {
      if (
        options.presets === undefined ||
        !(error instanceof ConfigError) ||
        !error.message.includes("Unrecognized key")
      )
        throw error;
      await defaults();
      return createKernel(config);
    }
  } catch (error) {
    // A Claude Agent SDK option (`abortController`, a preset `systemPrompt`): the error says what to write here.
    const hints = error instanceof ConfigError ? agentSdkHints(options, error.message) : "";
    if (!hints) throw error;
    throw new ConfigError(`${error instanceof Error ? error.message : String(error)}${hints}`);
  }
}

/** Feed a live session's input from the caller's iterable; its end (or failure) ends the input. Returns a stop. */
function pump(source: AsyncIterable<UserInput>, input: LiveInput): () => void {
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  void (async () => {
    try {
      for (let next = await iterator.next(); !next.done && !finished; next = await iterator.next())
        input.push(next.value);
    } catch (error) {
      // A message that is not a UserInput leaves the iterable open: tell it to stop too.
      input.failure = error;
      void Promise.resolve(iterator.return?.()).catch(() => undefined);
    } finally {
      finished = true;
      input.close();
    }
  })();
  // The session ended with the input still open: tell the iterable (its own cleanup runs).
  return () => {
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => undefined);
    finished = true;
  };
}

/** The messages of a run that could not even build its kernel (a bad option, a broken plugin). */
function yieldBootFailure(channel: Channel<Message>, options: SummonOptions, error: unknown) {
  const sessionId = randomUUID();
  const model =
    typeof options.model === "string"
      ? options.model
      : options.model
        ? `${options.model.provider}:${options.model.modelId}`
        : null;
  channel.push(
    stamp(
      { type: "system", subtype: "init", model, cwd: options.cwd ?? process.cwd(), tools: [], plugins: [], extra: {} },
      sessionId,
    ) as Message,
  );
  channel.push(
    stamp(
      {
        type: "result",
        // The kernel could not be built (a bad option, a broken plugin): nothing ran.
        subtype: "error_configuration",
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
