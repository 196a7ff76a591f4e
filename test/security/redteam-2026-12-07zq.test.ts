/**
 * Red team of 2026-12-07 (zq): what landed on main this evening, as a stranger — `ubiquity
 * permissions check` on a project's setup, the apiKeyHelper's renewal, header lists in env, a throw
 * from `tool.allowed`, red team zo's fixes and compat survey zb's "Device or resource busy". Through
 * the SDK (summon) against fake provider servers on 127.0.0.1 with the user's helper in a temp home,
 * the built bin in untrusted projects with marker files, and the permission engine with bash as the
 * oracle. Each finding's test failed before its fix (checked by reverting the fix).
 *
 * ZQ1 FIXED A provider's request followed a redirect to another server with its key: fetch drops
 *           only `Authorization` when a redirect leaves the origin, so Anthropic's `x-api-key` (and
 *           Azure's `api-key`, Google's `x-goog-api-key`, a gateway's own header) went to whatever
 *           server the `Location` named; with an apiKeyHelper, that server's 401 had the helper run
 *           again and its fresh key sent the same way (the renewal's "sent once more"). Oracle: the
 *           second server on 127.0.0.1 recorded both keys (`sk-broker-1…`, `sk-broker-2…`). Class:
 *           credentials a request carries, sent where the request was not addressed. Rule: a
 *           provider's request follows a redirect within its origin only; one to another origin
 *           is not followed and the call fails naming both origins (model/redirects.ts, the model
 *           plugin's innermost fetch wrapper, so every provider built from a string has it).
 *
 * ZQ2 FIXED A header list in the run's `env` (OTEL_EXPORTER_OTLP_HEADERS) was masked whole and
 *           header by header as written, but OpenTelemetry's values are percent-encoded
 *           (`Authorization=Bearer%20<token>`): the exporter sends, and logs, `Bearer <token>`. A
 *           Bash command printing the decoded list (`printf %b` of it with `%` as `\x`, what an
 *           SDK's debug log shows) put the bearer token unmasked in the tool result, the stream
 *           and the transcript (oracle: the stream-json run's tool result through the bin). Class:
 *           a credential shown in the form its program reads it in, not the form it was written in
 *           (the kernel masks a URL's password raw and decoded for the same reason). Rule: each
 *           header of a header list is registered as written and percent-decoded
 *           (_kits/process/env.ts, headerSecrets).
 *
 * ZQ3 FIXED Programs that write under names the data or the program picks, not the command line,
 *           were judged by their arguments alone: with the program's own allow rule, in acceptEdits
 *           (`Bash(rsync:*)`, `Bash(gunzip:*)`, `Bash(split:*)`, …), `rsync -a t/sub/ .` put
 *           t/sub/.mcp.json at the project's root (through the bin, unsandboxed: the file was
 *           there, as `cp -r t/sub/. .` asks for), `gunzip .mcp.json.gz` wrote .mcp.json,
 *           `split -l 1 f package.js` wrote package.json (its 378th piece, suffix `on`), and
 *           `rsync -a t/ node_modules/`, `bsdtar -xf`, `gtar -xf`, `7z x`, `unrar x`, `ar x`,
 *           `jar xf`, `cpio -i`, `pax -r`, `uudecode`, `csplit`, `gzip -S json .mcp.` were allowed
 *           alike (oracle: rsync, gunzip, split and ar in bash). Class: red team zo's (what a copy
 *           carries) for the extractors, copiers, decoders and splitters the engine had no
 *           table for (tar and unzip had one). Rule: each writes under names only known at run
 *           time — an unproven write, so it asks — and a decompressor writes its operand without
 *           the suffix (judged as any named write); to stdout, a list or a dry run writes nothing
 *           (permissions/shell/outputs.ts).
 *
 * ZQ4 FIXED The apiKeyHelper's renewal worked once: the provider is built with the helper's first
 *           key, and the renewal replaced only the key it held now in a request's headers — after
 *           one renewal (a 401, or the TTL), every later request of the run (the next turn, the
 *           fallback model, a subagent) carried the first key again, untouched and never renewed:
 *           a run with an hour-long SSO token failed an hour in (oracle: the fake provider's
 *           recorded `x-api-key`s, `sk-broker-1`, `-2`, then `-1` again). Not a leak; the renewal
 *           landed today. Rule: a request carrying any key the helper printed gets the current
 *           one (settings/key-helper.ts, `earlier`).
 *
 * ZQ5 FIXED The shown-secrets walk (ZO3) left every dot-folder directly under the account's home
 *           unwalked, "shown as the home's toolchains are when HOME is that home" — but the home
 *           shows whole only the toolchains it lists (`~/.pyenv`, `~/.nvm`), and parts of others
 *           (`~/.cargo/bin`, `~/.local/bin`, not `~/.config`). With HOME pointed elsewhere (CI, a
 *           container's), a PATH folder in `~/.config/…/bin`, `~/.cargo/bin` or any `~/.tool/bin`
 *           showed the whole dot-folder with nothing hidden: through the bin (--sandbox), `cat
 *           ~/.ubq-rt7zq-*\/.env` printed the secret (ZO3's class again, for one spelling of
 *           the folder). Rule: only a folder the home's list shows whole is left unwalked
 *           (sandbox/runtime.ts, #withShown: HOME_READABLE).
 *
 * ZQ6 FIXED The sandbox hid six `id_` key names (id_rsa, id_ed25519, id_ecdsa, id_dsa and the two
 *           `_sk` kinds) while the engine names every `id_[a-z0-9_]+` a private key: a deploy key
 *           under its own name (`ssh-keygen -f id_rsa_deploy`, `id_ed25519_github`) in the project
 *           was printed by a sandboxed `cat` (through the bin, --sandbox). Class: one list of
 *           secret names spelled twice, the sandbox's narrower. Rule: the sandbox's patterns (the
 *           writable folders', the PATH folders', the system folders') take the engine's
 *           `id_` spelling, public keys (`.pub`) left readable (sandbox/secrets.ts).
 *
 * ZQ7 FIXED Header lists were masked in the run's `env`, not in this process's own environment:
 *           with `OTEL_EXPORTER_OTLP_HEADERS` exported for Claude Code's telemetry (a bearer token
 *           or an `x-honeycomb-team` key), an unsandboxed Bash command reading the bin's
 *           `/proc/<pid>/environ` printed it unmasked beside `OPENAI_API_KEY=[redacted]` (through
 *           the bin). Class: ZQ2's, in the other environment. Rule: the process's `*_HEADERS`
 *           variables are registered as the run's `env`'s are — when the model plugin's config
 *           resolves and at every spawn (_kits/process/env.ts, noteProcessHeaderLists).
 *
 * ZQ8 FIXED `ubiquity permissions check --cwd proj --add-dir ../shared` resolved ../shared from
 *           proj, while `ubiquity run --cwd proj --add-dir ../shared` resolves it from where it is
 *           run: the check said "allow" (exit 0) for a Write into the folder the run does not
 *           permit — the run refused it as outside its folders — and "deny" for the one it does
 *           (oracle: the run through the bin, from the same folder with the same flags). Class:
 *           the check judging a setup other than the run's. Rule: the check's --add-dir folders are
 *           resolved as run's flag resolves them (permissions/command.ts).
 *
 * Tried (about 190 constructs): `permissions check` in an untrusted project holding a config that
 * writes a marker, settings with SessionStart/PreToolUse hooks, a statusLine, an apiKeyHelper, an
 * `env` NODE_OPTIONS, a .mcp.json server and an .npmrc `node-options` — plain, `--compat claude`
 * and `--trust` (only --trust ran the config, as documented; nothing else ran); its verdicts
 * against runs (ZQ8). The key helper: a 307 to another origin (ZQ1), one within it (followed), a
 * server answering 401 forever with a fallback model (2 helper runs, 3 requests, no loop, no key
 * in messages or logs), the turn after a renewal (ZQ4). Header lists: 8 variable spellings (the
 * per-signal OTEL ones, ANTHROPIC_CUSTOM_HEADERS, a JSON document, singular `_HEADER` names),
 * percent-encoding (ZQ2), the process's own environment (ZQ7). The funnel: a throw from
 * `tool.allowed` (rewrites, checkpoints) — held. Red team zo's classes through the engine: about
 * 140 commands (cp -r/-a/-T/-R/-l/-s/--parents/-t, mv -T, git mv, ln -s/-sT then writes through
 * the link, install -D, tar -C, find -exec cp, cd/pushd first, `;`/`||` chains, globs of dot
 * names, into node_modules/.bin, .git/hooks, .husky, .vscode, .claude, .ubiquity, .mcp.json,
 * .envrc) — all asked but the programs of ZQ3 (rsync, decompressors, archivers, split). The
 * sandbox: a dot-folder of the account's home on the PATH (ZQ5), nine `id_` key names (ZQ6).
 * Compat zb's "Device or resource busy": a message only (no state, no retry outside the sandbox).
 *
 * NOT FIXED (for the lead):
 * - `permissions check` judges before any handler: a PreToolUse hook or another plugin's vote
 *   that denies in a run is not consulted (running them would run the project's hooks), so it can
 *   say "allow" where the hook denies; and the sandbox's autoAllowBash turns its "ask" into a
 *   run's "allow". The output could name the hooks that may still change the verdict.
 * - Building the check's kernel runs the user's own apiKeyHelper (as `inspect` does).
 * - With HOME pointed elsewhere, a PATH folder of the account's home is shown whole with only the
 *   secrets walk's names hidden: `~/.cargo/credentials.toml`, `~/.config/gh/hosts.yml` are not
 *   among them (the home's own rules hide them when HOME is that home).
 * - The renewal replaces the key as a substring of every header value: a helper printing a short
 *   key would rewrite unrelated headers. Only headers equal to the key (or `Bearer <key>`) need it.
 * - `rsync` to a remote destination now asks too (its local writes cannot be told apart without
 *   rsync's option table); with `Bash(rsync:*)`, every rsync asks, in acceptEdits too, as unzip does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/project";
import { SKIP } from "../sandbox/helpers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { summon, type Message } from "ubiquity";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { collect, resultOf } from "../helpers/collect";
import { tempHome } from "../helpers/temp-home";
import { tempDir } from "../tools/helpers";
import { attackBench } from "./attack-bench";

const home = tempHome();
const servers: Server[] = [];
let provider: FakeProviderServer | undefined;
beforeEach(() => {
  vi.stubEnv("CLAUDE_CODE_API_KEY_HELPER_TTL_MS", undefined);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await provider?.close();
  provider = undefined;
  for (const s of servers.splice(0)) await new Promise((done) => s.close(done));
});

/** An HTTP server on 127.0.0.1 answering with `handle`; its origin. */
async function listen(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A helper printing `sk-broker-<n>-long-enough-key` for its n-th run. */
function helperScript(): { command: string; runs: () => number } {
  const dir = tempDir();
  const count = join(dir, "runs");
  writeFileSync(count, "");
  const command = join(dir, "get-key.sh");
  writeFileSync(
    command,
    `#!/bin/sh\necho run >> ${JSON.stringify(count)}\nn=$(wc -l < ${JSON.stringify(count)})\necho "sk-broker-$((n))-long-enough-key"\n`,
    { mode: 0o755 },
  );
  return { command, runs: () => readFileSync(count, "utf8").split("\n").filter(Boolean).length };
}

/** A run of the user's helper key against `baseURL` (Anthropic's wire). */
async function runWith(helper: string, baseURL: string): Promise<{ messages: Message[]; logged: string }> {
  mkdirSync(join(home(), ".ubiquity"), { recursive: true });
  writeFileSync(join(home(), ".ubiquity", "settings.json"), JSON.stringify({ apiKeyHelper: helper }));
  const lines: string[] = [];
  const log = (line: unknown) => void lines.push(String(line));
  const messages = await collect(
    summon("hi", {
      model: "anthropic:claude-haiku-4-5",
      providerSettings: { baseURL },
      settingSources: ["user"],
      cwd: tempDir(),
      persistSession: false,
      maxRetries: 0,
      logger: { debug: () => {}, info: () => {}, warn: log, error: log },
    }),
  );
  return { messages, logged: lines.join("\n") };
}

describe("ZQ4: after a renewal, every request of the run carries the new key", () => {
  it("the turn after a 401's renewal sends the renewed key, not the one the provider was built with", async () => {
    provider = await startProviderServer([
      { status: 401, message: "token expired" },
      { toolCalls: [{ id: "c1", name: "Glob", input: { pattern: "*.nothing" } }] },
      "done",
    ]);
    const helper = helperScript();
    const { messages } = await runWith(helper.command, provider.baseURL);
    expect(resultOf(messages)).toMatchObject({ isError: false, result: "done" });
    expect(provider.requests.map((r) => r.headers["x-api-key"])).toEqual([
      "sk-broker-1-long-enough-key",
      "sk-broker-2-long-enough-key",
      "sk-broker-2-long-enough-key",
    ]);
    expect(helper.runs()).toBe(2);
  });
});

describe("ZQ1: a redirect to another server never carries the provider's key", () => {
  it("a 307 to another origin is not followed: the other server gets no key, not the helper's first nor its fresh one", async () => {
    const stolen: string[] = [];
    // The other server answers 401, which made the renewal run the helper and send its new key.
    const other = await listen((req, res) => {
      stolen.push(String(req.headers["x-api-key"] ?? req.headers.authorization ?? "(none)"));
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "authentication_error", message: "expired" } }));
    });
    const gateway = await listen((req, res) => {
      res.writeHead(307, { location: `${other.replace("127.0.0.1", "localhost")}${req.url}` });
      res.end();
    });
    const helper = helperScript();
    const { messages, logged } = await runWith(helper.command, `${gateway}/v1`);
    expect(stolen).toEqual([]);
    const result = resultOf(messages);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(messages) + logged).toContain("which is not followed");
    expect(JSON.stringify(messages) + logged).not.toContain("sk-broker");
    expect(helper.runs()).toBe(1);
  });

  it("a redirect within the same origin is followed, with the key, to the answer", async () => {
    provider = await startProviderServer(["done"]);
    const upstream = provider.baseURL.replace(/\/v1$/, "");
    const gateway = await listen(async (req, res) => {
      if (req.url?.startsWith("/old/")) {
        res.writeHead(308, { location: req.url.replace("/old/", "/new/") });
        res.end();
        return;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => !["host", "content-length", "connection"].includes(k)),
      ) as Record<string, string>;
      const answer = await fetch(`${upstream}${req.url!.replace("/new/", "/")}`, {
        method: req.method,
        headers,
        body: Buffer.concat(chunks),
      });
      res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
    const helper = helperScript();
    const { messages } = await runWith(helper.command, `${gateway}/old/v1`);
    expect(resultOf(messages)).toMatchObject({ isError: false, result: "done" });
    expect(provider.requests.map((r) => r.headers["x-api-key"])).toEqual(["sk-broker-1-long-enough-key"]);
  });
});

const TOKEN = "tok_zq2_0123456789abcdef";
const { attack, project, oracle, verdict } = attackBench({
  name: "rt7zq",
  model: "openai:gpt-4.1",
  key: "sk-rt7zq-provider-key-0123456789",
  // A project whose config hands programs the user's OpenTelemetry exporter headers.
  fill: ({ cwd }) => {
    const env = { OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer%20${TOKEN},x-tenant=acme` };
    writeFileSync(join(cwd, ".ubiquityrc.json"), JSON.stringify({ env }));
  },
});

describe("ZQ2: a header list's values are masked percent-decoded too", () => {
  it("the exporter's bearer token, printed as the exporter decodes it, comes back masked", async () => {
    const { out, run } = await attack(
      [`printf '%b\\n' "$(printf %s "$OTEL_EXPORTER_OTLP_HEADERS" | sed 's/%/\\\\x/g')"`],
      ["--permission-mode", "bypassPermissions"],
    );
    // The command ran and printed the decoded list (the header's name and scheme are no secret).
    expect(out[0]!.content).toContain("Authorization=");
    expect(out[0]!.content).toContain("[redacted]");
    expect(run.stdout).not.toContain(TOKEN);
  });
});

/** A project holding t/sub/.mcp.json (a file an Edit of the model's could have written), .mcp.json.gz and a 400-line file. */
function plantedProject() {
  const p = project();
  mkdirSync(join(p.cwd, "t", "sub"), { recursive: true });
  mkdirSync(join(p.cwd, "t", ".bin"), { recursive: true });
  writeFileSync(join(p.cwd, "t", "sub", ".mcp.json"), '{"mcpServers":{"x":{"command":"sh"}}}\n');
  writeFileSync(join(p.cwd, "t", ".bin", "vitest"), "#!/bin/sh\n");
  writeFileSync(join(p.cwd, "package.json"), '{"name":"app","scripts":{"test":"vitest"}}\n');
  writeFileSync(join(p.cwd, "f"), `${Array.from({ length: 400 }, (_, i) => i + 1).join("\n")}\n`);
  spawnSync("sh", ["-c", "cp t/sub/.mcp.json m && gzip m && mv m.gz .mcp.json.gz"], { cwd: p.cwd });
  return p;
}

const has = (program: string) => spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;

describe("ZQ3: programs writing under names the data picks are unproven writes", () => {
  const RULES = [
    "rsync",
    "gunzip",
    "gzip",
    "bunzip2",
    "unxz",
    "unzstd",
    "split",
    "csplit",
    "bsdtar",
    "gtar",
    "7z",
    "unrar",
    "ar",
    "jar",
    "cpio",
    "pax",
    "uudecode",
  ].map((p) => `Bash(${p}:*)`);

  it("the oracle: rsync, gunzip and split plant .mcp.json and package.json", () => {
    for (const [program, command, planted] of [
      ["rsync", "rsync -a t/sub/ .", ".mcp.json"],
      ["gunzip", "gunzip .mcp.json.gz", ".mcp.json"],
      ["split", "rm package.json && split -l 1 f package.js", "package.json"],
    ] as const) {
      if (!has(program)) continue;
      const p = oracle(command, plantedProject());
      expect(existsSync(join(p.cwd, planted)), `${command}: ${p.stderr}`).toBe(true);
    }
  });

  it("each asks in acceptEdits with its program's allow rule", async () => {
    const p = plantedProject();
    for (const command of [
      "rsync -a t/sub/ .",
      "rsync -a t/ node_modules/",
      "rsync -r t/sub .",
      "gunzip .mcp.json.gz",
      "gzip -d .mcp.json.gz",
      "unzstd .mcp.json.zst",
      "gzip -S json .mcp.",
      "split -l 1 f package.js",
      "csplit -f package.js -b on f 1",
      "bsdtar -xf x.tar",
      "gtar -xf x.tar",
      "7z x x.7z",
      "unrar x x.rar",
      "ar x x.a",
      "jar xf x.jar",
      "cpio -i < x.cpio",
      "cpio -pd node_modules < list",
      "pax -r < x.pax",
      "uudecode x.uu",
    ]) {
      const d = await verdict(command, "acceptEdits", { allow: RULES }, p);
      expect(d.behavior, `${command}: ${d.message}`).toBe("ask");
    }
  });

  it("what writes nothing, or a name that is no sensitive file, is still allowed (controls)", async () => {
    const p = plantedProject();
    for (const command of [
      "rsync -n -a t/ node_modules/",
      "rsync --list-only t/",
      "gzip -dc .mcp.json.gz",
      "gunzip -t .mcp.json.gz",
      "gunzip src.gz",
      "ar t x.a",
      "7z l x.7z",
      "cpio -t < x.cpio",
      "uudecode -o out.txt x.uu",
    ]) {
      const d = await verdict(command, "acceptEdits", { allow: RULES }, p);
      expect(d.behavior, `${command}: ${d.message}`).toBe("allow");
    }
  });

  it("through the bin, unsandboxed in acceptEdits with Bash(rsync:*): .mcp.json is not planted", async () => {
    if (!has("rsync")) return;
    const p = plantedProject();
    const { out } = await attack(
      ["rsync -a t/sub/ ."],
      ["--no-sandbox", "--permission-mode", "acceptEdits", "--allowedTools", "Bash(rsync:*)"],
      p,
    );
    expect(out[0]!.content).toContain("needs approval");
    expect(existsSync(join(p.cwd, ".mcp.json"))).toBe(false);
  });
});

describe("ZQ5: a dot-folder of the account's home on the PATH has its secrets hidden", () => {
  // The folder must sit directly under the account's home (outside /tmp and the system's folders).
  const own = userInfo().homedir;
  const NO_HOME =
    !own || /^\/(tmp|usr|etc|opt|var)(\/|$)/.test(own) ? "the account's home is in /tmp or a system folder" : undefined;
  let tool: string | undefined;
  afterEach(() => {
    if (tool) rmSync(tool, { recursive: true, force: true });
    tool = undefined;
  });

  it.skipIf(SKIP || NO_HOME)(
    "through the bin (--sandbox): the program on the PATH runs; the folder's .env is unreadable",
    async () => {
      tool = realpathSync(mkdtempSync(join(own, ".ubq-rt7zq-")));
      mkdirSync(join(tool, "bin"));
      writeFileSync(join(tool, "bin", "zqtool"), "#!/bin/sh\necho the tool ran\n", { mode: 0o755 });
      writeFileSync(join(tool, ".env"), "TOOL_TOKEN=sk-zq5-dot-folder-secret\n");
      const p = project();
      const { out } = await attack(
        ["zqtool", `cat ${tool}/.env; ls -a ${tool}`],
        ["--sandbox", "--permission-mode", "bypassPermissions"],
        p,
        { PATH: `${join(tool, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}` },
      );
      expect(out[0]!.content).toContain("the tool ran");
      expect(out[1]!.content).toContain(".env");
      expect(out[1]!.content).not.toContain("sk-zq5-dot-folder-secret");
    },
  );
});

describe("ZQ6: every id_ key the engine names is hidden in the sandbox", () => {
  it.skipIf(SKIP)(
    "through the bin (--sandbox): id_rsa_deploy and id_ed25519_github are unreadable; id_rsa_deploy.pub is not",
    async () => {
      const p = project();
      mkdirSync(join(p.cwd, "deploy"));
      writeFileSync(join(p.cwd, "id_rsa_deploy"), "-----BEGIN OPENSSH PRIVATE KEY-----\nzq6-deploy-private\n");
      writeFileSync(
        join(p.cwd, "deploy", "id_ed25519_github"),
        "-----BEGIN OPENSSH PRIVATE KEY-----\nzq6-github-private\n",
      );
      writeFileSync(join(p.cwd, "id_rsa_deploy.pub"), "ssh-rsa AAAAzq6public deploy\n");
      const { out } = await attack(
        ["cat id_rsa_deploy deploy/id_ed25519_github id_rsa_deploy.pub"],
        ["--sandbox", "--permission-mode", "bypassPermissions"],
        p,
      );
      expect(out[0]!.content).not.toMatch(/zq6-deploy-private|zq6-github-private/);
      expect(out[0]!.content).toContain("AAAAzq6public");
    },
  );
});

describe("ZQ7: this process's own header lists are masked too", () => {
  it("through the bin, unsandboxed: the bin's environ shows OTEL_EXPORTER_OTLP_HEADERS masked", async () => {
    const token = "hcaik_zq7_0123456789abcdef";
    const { out, run } = await attack(
      [
        "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ 2>/dev/null | grep -e OTEL_EXPORTER_OTLP_HEADERS -e OPENAI_API_KEY; done; true",
      ],
      ["--no-sandbox", "--permission-mode", "bypassPermissions"],
      undefined,
      { OTEL_EXPORTER_OTLP_HEADERS: `x-honeycomb-team=${token},x-honeycomb-dataset=zq7` },
    );
    // The command read the bin's environment: its provider key masked, as the header list must be.
    expect(out[0]!.content).toContain("OPENAI_API_KEY=[redacted]");
    expect(out[0]!.content).toContain("OTEL_EXPORTER_OTLP_HEADERS=");
    expect(run.stdout).not.toContain(token);
  });
});

describe("ZQ8: permissions check resolves --add-dir as a run does", () => {
  it("the check and a run from the same folder with the same flags agree on which folder --add-dir permits", async () => {
    const root = project();
    for (const dir of [join("b", "proj"), join("b", "shared"), "shared"])
      mkdirSync(join(root.cwd, dir), { recursive: true });
    // Run from b with --cwd proj: `--add-dir ../shared` is root/shared for the run; the check took b/shared.
    const from = { cwd: join(root.cwd, "b"), home: root.home };
    const permitted = join(root.cwd, "shared", "zq8.txt");
    const other = join(root.cwd, "b", "shared", "zq8.txt");
    const check = (path: string) =>
      runCli(
        [
          "permissions",
          "check",
          "--cwd",
          "proj",
          "--add-dir",
          "../shared",
          "--mode",
          "acceptEdits",
          "--tool",
          "Write",
          path,
        ],
        from.cwd,
        { HOME: from.home },
      );
    const { out } = await attack(
      [
        { name: "Write", input: { file_path: permitted, content: "x" } },
        { name: "Write", input: { file_path: other, content: "x" } },
      ],
      ["--cwd", "proj", "--add-dir", "../shared", "--permission-mode", "acceptEdits"],
      from,
    );
    // The oracle: the run writes the first and refuses the second as outside its folders.
    expect(out[0]!.isError, out[0]!.content).toBe(false);
    expect(out[1]!.isError).toBe(true);
    expect(existsSync(permitted)).toBe(true);
    expect(existsSync(other)).toBe(false);
    const [yes, no] = [await check(permitted), await check(other)];
    expect(yes.stdout, yes.stderr).toMatch(/^allow:/);
    expect(no.stdout, no.stderr).not.toMatch(/^allow:/);
    expect(no.code).not.toBe(0);
  });
});
