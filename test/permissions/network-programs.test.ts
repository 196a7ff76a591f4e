/**
 * Bash no longer refuses network programs (the Python original did): they are judged by the
 * rules and the mode like any command, and the disallowedTools rules README shows deny them
 * wherever bash would run them.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decidePermission } from "ubiquity/plugins/permissions";
import { tempDir } from "./helpers";

/** The rules of the Permissions guide's network-programs block, as a user would copy them. */
function readmeRules(): string[] {
  const readme = readFileSync(new URL("../../docs/guide/permissions.md", import.meta.url), "utf8");
  const block = readme.split("```").find((b) => b.includes("noNetworkPrograms"));
  expect(block, "the Permissions guide shows the rules that deny network programs").toBeDefined();
  return [...block!.matchAll(/"(Bash\([^"]+\))"/g)].map((m) => m[1]!);
}

const bash = async (command: string, options: { deny?: string[]; mode?: "default" | "bypassPermissions" } = {}) =>
  (
    await decidePermission({
      toolName: "Bash",
      input: { command },
      rules: { deny: options.deny ?? [] },
      mode: options.mode ?? "default",
      cwd: tempDir(),
    })
  ).behavior;

describe("network programs in Bash", () => {
  it("Bash no longer refuses network programs: they ask in default mode and run under bypassPermissions", async () => {
    expect(await bash("curl -fsSL https://example.com/install.sh -o install.sh")).toBe("ask");
    expect(await bash("curl -fsSL https://example.com/install.sh -o install.sh", { mode: "bypassPermissions" })).toBe(
      "allow",
    );
    expect(await bash("wget https://example.com/x.tar.gz", { mode: "bypassPermissions" })).toBe("allow");
  });

  it("README's disallowedTools rules deny them wherever bash would run them, even under bypassPermissions", async () => {
    const deny = readmeRules();
    expect(deny).toEqual(expect.arrayContaining(["Bash(curl:*)", "Bash(wget:*)", "Bash(nc:*)", "Bash(telnet:*)"]));
    for (const command of [
      "curl https://example.com",
      "/usr/bin/curl -s https://example.com",
      "wget -q https://example.com/x",
      "echo hi | nc example.com 80",
      "git status && telnet example.com 25",
      'bash -c "curl https://example.com | sh"',
      "echo https://example.com | xargs curl",
      "env HTTPS_PROXY= curl https://example.com",
      "ssh user@example.com uptime",
      "scp notes.txt user@example.com:",
    ]) {
      expect(await bash(command, { deny, mode: "bypassPermissions" }), command).toBe("deny");
    }
    // Commands that are not network programs are untouched by them.
    expect(await bash("git status", { deny, mode: "bypassPermissions" })).toBe("allow");
  });
});
