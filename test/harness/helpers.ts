import { mkdtempSync, rmSync } from "node:fs";
import { afterEach } from "vitest";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HarnessAgent, type HarnessAgentPermissionMode } from "@ai-sdk/harness/agent";
import type { HarnessV1 } from "@ai-sdk/harness";
import {
  localSandbox,
  ubiquityHarness,
  type UbiquityBuiltinTools,
  type UbiquityHarnessOptions,
} from "ubiquity/harness";

/** A temp folder for a test: sessions are created under `root`; Ubiquity's stores go to `state`. */
export function tempRoot() {
  const base = mkdtempSync(join(tmpdir(), "ubiquity-harness-"));
  return {
    root: join(base, "work"),
    state: join(base, "state"),
    /** The folder `HarnessAgent` gives session `id` (and Ubiquity's cwd). */
    dir: (id: string) => join(base, "work", `ubiquity-${id}`),
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** `root()` for each test: temp roots removed after each test of the file that calls this. */
export function tempRoots(): () => ReturnType<typeof tempRoot> {
  let roots: Array<ReturnType<typeof tempRoot>> = [];
  afterEach(() => {
    for (const r of roots) r.remove();
    roots = [];
  });
  return () => {
    const r = tempRoot();
    roots.push(r);
    return r;
  };
}

/** A HarnessAgent running ubiquityHarness (the default preset) on this machine. */
export function agentFor(
  root: ReturnType<typeof tempRoot>,
  options: UbiquityHarnessOptions,
  permissionMode?: HarnessAgentPermissionMode,
): HarnessAgent<HarnessV1<UbiquityBuiltinTools>> {
  return new HarnessAgent({
    harness: ubiquityHarness({
      sessionDir: join(root.state, "sessions"),
      todoDir: join(root.state, "todos"),
      ...options,
    }),
    sandbox: localSandbox({ root: root.root }),
    ...(permissionMode ? { permissionMode } : {}),
  });
}

/** Every part of a HarnessAgent stream, in order. */
export async function partsOf(stream: AsyncIterable<{ type: string }>) {
  const parts: Array<Record<string, unknown> & { type: string }> = [];
  for await (const part of stream) parts.push(part as Record<string, unknown> & { type: string });
  return parts;
}

/** The parts a test reads: tool calls, tool results/errors, approvals, text (one entry per text block), the end. */
export function outline(parts: Array<Record<string, unknown> & { type: string }>): string[] {
  const out: string[] = [];
  for (const p of parts) {
    if (p.type === "tool-call") out.push(`call:${p.toolName}`);
    else if (p.type === "tool-result") out.push(`result:${p.toolName}`);
    else if (p.type === "tool-error") out.push(`error:${p.toolName}`);
    else if (p.type === "tool-approval-request") out.push("approval");
    else if (p.type === "text-start") out.push("text:");
    else if (p.type === "text-delta") out[out.length - 1] += String(p.text);
    else if (p.type === "abort" || p.type === "error" || p.type === "finish") out.push(p.type);
  }
  return out;
}
