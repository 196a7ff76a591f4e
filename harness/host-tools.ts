/**
 * The `HarnessAgent`'s own tools (its `tools` setting) inside a Ubiquity run: each spec becomes a
 * Ubiquity tool whose call waits for the host's result (`submitToolResult`). The host already
 * approved the call (its `toolApproval`), so Ubiquity's permission engine allows it unless a deny
 * rule names it.
 */
import { z } from "zod";
import type { HarnessV1ToolSpec } from "@ai-sdk/harness";
import { Tool, type Plugin, type ToolContext, type ToolOutput, type ToolPermission } from "../src/index";

export const HOST_TOOLS_PLUGIN = "ubiquity:harness-host-tools";

/** What a host tool's call waits on: the host's answer for one call id. */
export type HostAnswer = (toolCallId: string, signal: AbortSignal) => Promise<ToolOutput>;

class HostTool extends Tool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema = z.record(z.string(), z.unknown());
  override jsonSchema: Record<string, unknown>;

  constructor(
    spec: HarnessV1ToolSpec,
    private readonly answer: HostAnswer,
  ) {
    super();
    this.name = spec.name;
    this.description = spec.description ?? spec.name;
    this.jsonSchema = (spec.inputSchema as Record<string, unknown> | undefined) ?? { type: "object", properties: {} };
  }

  override checkPermissions(): ToolPermission {
    return { behavior: "allow" };
  }

  call(_input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
    return this.answer(ctx.toolUseId, ctx.abortSignal);
  }
}

/** A plugin registering the host's tools (registered last, so a host tool named like a built-in wins, as in `HarnessAgent`). */
export function hostToolsPlugin(specs: readonly HarnessV1ToolSpec[], answer: HostAnswer): Plugin {
  return {
    name: HOST_TOOLS_PLUGIN,
    apply(kernel) {
      kernel.hooks.kernel.configResolved.tap(HOST_TOOLS_PLUGIN, () => {
        for (const spec of specs)
          kernel.registries.tools.register(spec.name, new HostTool(spec, answer), HOST_TOOLS_PLUGIN);
      });
    },
  };
}
