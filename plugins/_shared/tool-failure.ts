import type { ToolOutput } from "../../src/index";

/**
 * A refusal or error the model should read and act on (a missing file, a stale read, a path
 * outside the roots). Its message always says how to fix the call.
 */
export class ToolFailure extends Error {
  override name = "ToolFailure";
}

/** Run a tool body, turning a `ToolFailure` into an error result; anything else still throws. */
export async function guard(body: () => Promise<ToolOutput>): Promise<ToolOutput> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof ToolFailure) return { content: error.message, isError: true };
    throw error;
  }
}
