/** Base class of every error Ubiquity raises on purpose; the message always names the fix. */
export class UbiquityError extends Error {
  override name = "UbiquityError";
}

/** An error raised inside a plugin's tap, attributed to the plugin and the kernel hook. */
export class PluginError extends UbiquityError {
  override name = "PluginError";
  constructor(
    readonly plugin: string,
    readonly hook: string,
    readonly original: unknown,
  ) {
    const detail = original instanceof Error ? original.message : String(original);
    super(`[plugin ${plugin}] hook ${hook}: ${detail}`, { cause: original });
  }
}

/** A tap made where taps are not allowed: after kernel.ready, or with tapAsync / before. */
export class HookUsageError extends UbiquityError {
  override name = "HookUsageError";
}

/** A plugin list that cannot boot: a missing dependency, a malformed entry. */
export class PluginResolutionError extends UbiquityError {
  override name = "PluginResolutionError";
}

/** A config file or an options object that does not validate. */
export class ConfigError extends UbiquityError {
  override name = "ConfigError";
  constructor(
    message: string,
    readonly file?: string,
  ) {
    super(file ? `${file}: ${message}` : message);
  }
}

/** The model could not be resolved or configured. */
export class ModelError extends UbiquityError {
  override name = "ModelError";
}

/** Describe any thrown value in one line, without a stack. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
