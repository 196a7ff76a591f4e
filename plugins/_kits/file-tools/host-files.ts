/**
 * Where Read, Write and Edit get and put a text file's content when a host owns the files (an
 * editor, whose unsaved buffers are the truth): a run's host files, set by whoever drives the run.
 * Only the content goes through the host; the path checks, read-before-write and the permission
 * vote happen before, exactly as on disk.
 */
import { readFile } from "node:fs/promises";
import type { RunContext, ToolContext } from "../../../src/index";

/** A host's file access; either half may be missing (the disk serves it). `signal` is the tool call's: a host that cannot answer must not hold a cancelled run. */
export interface HostFiles {
  /** The file's current text. */
  readText?(path: string, signal?: AbortSignal): Promise<string>;
  /** Replace the file's text. */
  writeText?(path: string, text: string, signal?: AbortSignal): Promise<void>;
}

const HOST_FILES = Symbol("ubiquity:file-tools host files");

/** Route the file tools of `run` (and of its subagents) through `host`. */
export function setHostFiles(run: RunContext, host: HostFiles): void {
  run.state.set(HOST_FILES, host);
}

/** The host files of a tool call's run, if any run above it set them. */
export function hostFilesOf(ctx: ToolContext): HostFiles | undefined {
  for (let run: RunContext | undefined = ctx.run; run; run = run.parent) {
    const host = run.state?.get(HOST_FILES) as HostFiles | undefined; // a hand-made context may carry a partial run
    if (host) return host;
  }
  return undefined;
}

/**
 * The bytes of a text file as the host has them (its buffer), else as on disk: `disk`, the judged
 * file's bytes, also when the host cannot serve it (never the path read again by name: a link
 * swapped in since leads anywhere; red team zf, ZF5).
 */
export async function hostBytes(ctx: ToolContext, path: string, disk?: Buffer): Promise<Buffer> {
  const read = hostFilesOf(ctx)?.readText;
  if (!read) return disk ?? (await readFile(path));
  try {
    return Buffer.from(await read(path, ctx.abortSignal), "utf8");
  } catch (error) {
    if (disk === undefined || ctx.abortSignal?.aborted) throw error;
    return disk;
  }
}
