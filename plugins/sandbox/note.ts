/** The system prompt's sandbox section: what the boundary means for the agent's commands. */
import type { SandboxSettings } from "./config";
import { hasSocketFilter } from "./seccomp";

/**
 * The text of the `sandbox` section. The working directory, when `cwd` is given, is called so
 * rather than named again: the environment section names it.
 */
export function sandboxNote(settings: SandboxSettings, readOnlyModules: readonly string[] = [], cwd?: string): string {
  const net =
    settings.network.mode === "all"
      ? "Network access is open."
      : settings.network.mode === "proxy"
        ? `Network access goes through a proxy that lets through only: ${settings.network.allowedDomains.join(", ")}. Other hosts are refused.`
        : "No network: downloads, installs and connections fail.";
  const lines = [
    "# Sandbox",
    "Bash runs in an operating-system sandbox.",
    `- Writable: only ${settings.writable.map((d) => (d === cwd ? "the working directory" : d)).join(", ")} and /tmp (private to this run); elsewhere writes fail with "Read-only file system". There, files that run code later are read-only at any depth (git config and hook scripts, .ubiquity/, ubiquity.config.*, .mcp.json, .envrc, hook managers' config, shell start-up files); one a command creates is moved out when it ends.`,
    ...(readOnlyModules.length > 0
      ? [
          `- Read-only too: ${readOnlyModules.join(", ")} (ubiquity itself or an MCP server runs code from there), so installs there fail: ask the user to run them.`,
        ]
      : []),
    "- Home is hidden except toolchains and caches; credentials (~/.ssh, .env files, ...) are unreadable.",
    // Trial zg: a dev server in a background shell, then `curl localhost:8000` in another call.
    `- ${net}${settings.network.mode === "all" ? "" : " Each command has its own localhost: start a server and call it in the same command."}`,
    ...(settings.unixSockets === "blocked" && hasSocketFilter()
      ? [
          '- No Unix sockets (docker, ssh-agent, local servers): socket() fails with "Operation not permitted"; 32-bit programs are killed.',
        ]
      : []),
    'A result saying "blocked by the sandbox" hit this boundary: do not work around it; tell the user what you needed.',
  ];
  if (settings.excludedCommands.length > 0)
    lines.push(
      `Commands starting with ${settings.excludedCommands.join(", ")} run outside the sandbox and may ask for approval (always after sandboxed commands changed files).`,
    );
  return lines.join("\n");
}
