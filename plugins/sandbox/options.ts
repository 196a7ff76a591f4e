/** The options the sandbox plugin reads (`sandbox`). */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";

const SandboxFilesystemSchema = z.strictObject({
  allowWrite: z
    .array(z.string())
    .optional()
    .describe("More folders the sandbox may write (cwd, additionalDirectories and a private temp folder always)"),
  denyWrite: z
    .array(z.string())
    .optional()
    .describe("Paths kept read-only inside the writable folders (on top of the built-in list)"),
  denyRead: z
    .array(z.string())
    .optional()
    .describe("Paths made unreadable (on top of Read(...) deny rules and the sensitive set)"),
  allowRead: z.array(z.string()).optional().describe("Paths readable again inside a denyRead folder"),
});
const SandboxNetworkSchema = z.union([
  z.literal("none"),
  z.literal("all"),
  z.strictObject({
    allowedDomains: z
      .array(z.string())
      .optional()
      .describe('Hosts reachable through the filtering proxy: "example.com", "*.example.com", "localhost:8080"'),
    deniedDomains: z.array(z.string()).optional().describe("Hosts refused even when allowedDomains matches"),
    allowAllUnixSockets: z
      .boolean()
      .optional()
      .describe(
        "Let sandboxed commands make Unix sockets, and so reach any socket they can see (docker, ssh-agent) [false]",
      ),
    allowUnixSockets: z
      .array(z.string())
      .optional()
      .describe("Claude Code's Unix socket paths: not honoured on Linux (a path cannot be filtered), reported"),
  }),
]);
/** The OS sandbox for Bash, command hooks and stdio MCP servers (the ubiquity:sandbox plugin). */
export const SandboxSchema = z.union([
  z.boolean(),
  z.strictObject({
    enabled: z.boolean().optional().describe("[true when the object is given]"),
    filesystem: SandboxFilesystemSchema.optional(),
    network: SandboxNetworkSchema.optional().describe('["none"]'),
    failIfUnavailable: z
      .boolean()
      .optional()
      .describe("End the run when the sandbox cannot start [true]; false warns once and runs unsandboxed"),
    autoAllowBash: z
      .boolean()
      .optional()
      .describe("Sandboxed Bash calls that would only ask run without a prompt; deny and ask rules still apply [true]"),
    autoAllowBashIfSandboxed: z.boolean().optional().describe("Claude Code's name for autoAllowBash"),
    excludedCommands: z
      .array(z.string())
      .optional()
      .describe('Commands run outside the sandbox, judged by the rules alone: "docker", "git push"'),
  }),
]);
export type SandboxOption = z.input<typeof SandboxSchema>;

/** The sandbox plugin's slice of the config schema. */
export const sandboxOptions = lazyOptions(["sandbox"], () => ({
  sandbox: SandboxSchema.optional().describe("Run Bash, command hooks and stdio MCP servers in an OS sandbox [off]"),
}));
export type SandboxOptions = z.input<typeof sandboxOptions>;
export type SandboxResolvedOptions = ResolvedOptions & Readonly<SandboxOptions>;
