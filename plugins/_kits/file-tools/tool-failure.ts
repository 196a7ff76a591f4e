import type { ToolOutput } from "../../../src/index";

/**
 * A refusal or error the model should read and act on (a missing file, a stale read, a path
 * outside the roots). Its message always says how to fix the call.
 */
export class ToolFailure extends Error {
  override name = "ToolFailure";
}

const FS_ERRORS: Record<string, string> = {
  EACCES: "permission denied: this process may not access it",
  EPERM: "operation not permitted",
  EROFS: "the filesystem is read-only",
  ENOSPC: "no space left on the device",
  ENAMETOOLONG: "the path is too long",
  ELOOP: "too many levels of symbolic links",
  ENOTDIR: "a part of the path is not a folder",
  EISDIR: "it is a directory",
  EBUSY: "the file is busy",
};

/** Run a tool body, turning a `ToolFailure` or a known filesystem error into an error result; anything else still throws. */
export async function guard(body: () => Promise<ToolOutput>): Promise<ToolOutput> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof ToolFailure) return { content: error.message, isError: true };
    const { code, path } = error as NodeJS.ErrnoException;
    const reason = code ? FS_ERRORS[code] : undefined;
    if (reason)
      return {
        content: `${path ?? "The file"}: ${reason} (${code}). Choose another path or fix the cause first.`,
        isError: true,
      };
    throw error;
  }
}
