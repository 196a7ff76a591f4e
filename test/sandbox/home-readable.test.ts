/**
 * What of the home folder a sandboxed command reads (red team u, left open): HOME_READABLE kept the
 * whole of `~/.cache` and `~/.config/mise` readable, and with them huggingface_hub's
 * `stored_tokens`, snowflake's credential cache and a mise `[env]` section's keys. Now only named
 * caches are shown, and mise's configs are served as copies with only the tables that choose tools.
 * Real bubblewrap, through summon() with the scripted model.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { miseConfigWithoutSecrets } from "../../plugins/sandbox/secrets";
import { outputs, runBash, SKIP, sandboxPlace } from "./helpers";

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const MISE = `min_version = "2024.1.0"
env.TOP_TOKEN = "mise-top-leak"

[tools]
node = "20"
python = { version = "3.12" }
"http:tool" = { url = "https://user:mise-url-leak@example.com/tool.tgz" }
api_key = "mise-tools-key-leak"

[env]
OPENAI_API_KEY = "mise-env-leak"
_.file = ".env"

[settings]
experimental = true
github_token = "mise-settings-leak"
note = """
mise-multiline-leak
"""

[tasks.deploy]
run = "deploy --token mise-task-leak"
`;

describe("a mise config served in the sandbox", () => {
  it("keeps the tables that choose tools and drops [env], [tasks], credential-named keys, multi-line strings and URL passwords", () => {
    const out = miseConfigWithoutSecrets(MISE);
    expect(out).toContain('min_version = "2024.1.0"');
    expect(out).toContain('node = "20"');
    expect(out).toContain('python = { version = "3.12" }');
    expect(out).toContain("https://user@example.com/tool.tgz");
    expect(out).toContain("experimental = true");
    expect(out).not.toMatch(/leak/);
    expect(out).not.toContain("[env]");
    expect(out).not.toContain("[tasks.deploy]");
  });
});

describe.skipIf(SKIP)("the home folder in the sandbox", () => {
  const place = sandboxPlace();

  it("named caches and toolchain parts stay readable; a credential in another cache folder, huggingface's, mise's [env] or beside a toolchain is not", async () => {
    const home = place.home();
    put(join(home, ".cache", "huggingface", "stored_tokens"), "[default]\nhf_token = hf_stored_leak\n");
    put(join(home, ".cache", "snowflake", "credential_cache_v1.json"), '{"token":"snow-leak"}\n');
    put(join(home, ".cache", "some-cli", "auth.json"), '{"token":"unnamed-cache-leak"}\n');
    put(join(home, ".cache", "pip", "http", "entry"), "pip-cache-readable\n");
    put(join(home, ".cache", "huggingface", "hub", "models.txt"), "hub-readable\n");
    put(join(home, ".config", "mise", "config.toml"), MISE);
    put(join(home, ".config", "mise", "conf.d", "extra.toml"), '[tools]\ngo = "1.22"\n[env]\nX = "confd-leak"\n');
    put(join(home, ".config", "mise", "secrets.json"), '{"k":"mise-folder-leak"}\n');
    put(join(home, ".config", "nvim", "init.lua"), 'vim.g.openai_key = "nvim-leak"\n');
    // Inside toolchain folders: julia's REPL history, .NET's certificate store, stack's and cabal's credentials.
    put(join(home, ".julia", "logs", "repl_history.jl"), 'ENV["TOKEN"] = "julia-history-leak"\n');
    put(join(home, ".dotnet", "corefx", "cryptography", "x509stores", "my", "dev.pfx"), "dotnet-key-leak\n");
    put(join(home, ".stack", "upload", "credentials.json"), '{"password":"stack-leak"}\n');
    put(join(home, ".cabal", "config"), "password: cabal-leak\n");
    put(join(home, ".npm", "_logs", "debug-0.log"), "verbose argv --//registry.npmjs.org/:_authToken=npm-log-leak\n");
    put(join(home, ".julia", "packages", "Example", "README.md"), "julia-package-readable\n");
    put(join(home, ".dotnet", "sdk", "8.0.100", "version.txt"), "dotnet-sdk-readable\n");
    put(join(home, ".cabal", "packages", "index.txt"), "cabal-packages-readable\n");
    const messages = await runBash(
      [
        "cat ~/.cache/huggingface/stored_tokens",
        "cat ~/.cache/snowflake/credential_cache_v1.json",
        "cat ~/.cache/some-cli/auth.json",
        "cat ~/.cache/pip/http/entry ~/.cache/huggingface/hub/models.txt",
        "cat ~/.config/mise/config.toml ~/.config/mise/conf.d/extra.toml",
        "cat ~/.config/mise/secrets.json; cat ~/.config/nvim/init.lua; ls -a ~/.cache ~/.config/mise",
        "cat ~/.julia/logs/repl_history.jl ~/.dotnet/corefx/cryptography/x509stores/my/dev.pfx ~/.stack/upload/credentials.json ~/.cabal/config ~/.npm/_logs/debug-0.log",
        "cat ~/.julia/packages/Example/README.md ~/.dotnet/sdk/8.0.100/version.txt ~/.cabal/packages/index.txt",
      ],
      { cwd: place.ws(), sandbox: true },
    );
    const out = outputs(messages);
    for (const id of ["c0", "c1", "c2"]) expect(out[id]!.isError, `${id}: ${out[id]!.content}`).toBe(true);
    expect(out.c3!.content).toContain("pip-cache-readable");
    expect(out.c3!.content).toContain("hub-readable");
    expect(out.c4!.isError, out.c4!.content).toBe(false);
    expect(out.c4!.content).toContain('node = "20"');
    expect(out.c4!.content).toContain('go = "1.22"');
    expect(out.c6!.isError).toBe(true);
    expect(out.c7!.content).toMatch(/julia-package-readable\s+dotnet-sdk-readable\s+cabal-packages-readable/);
    expect(JSON.stringify(messages)).not.toMatch(/leak/);
  });
});
