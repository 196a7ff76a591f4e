/**
 * Red team of 2026-12-07 (zh): everything but the Bash command analysis, as a stranger — a hostile
 * DNS or MCP server, the model sending tool calls. Through the built bin against the scripted
 * attacker (a fake provider on 127.0.0.1), in a network namespace of its own (`unshare -Urnm`)
 * with the attacker's DNS server where a name is the surface. Each finding's test failed before
 * its fix (checked by reverting it).
 *
 * ZH1 FIXED heldFetch (red team zf's DNS-rebinding fix) handed a held name's request to `fetch`
 *           whenever its own reading of the proxy variables said node would send it to the proxy,
 *           and node read them otherwise: node's EnvHttpProxyAgent takes `no_proxy` before
 *           `NO_PROXY` and `http_proxy` before `HTTP_PROXY` (an empty one meaning none), heldFetch
 *           the upper-case ones first. With `NODE_USE_ENV_PROXY=1`, `HTTP_PROXY` set and either
 *           `NO_PROXY=corp.example` with `no_proxy=<the server's host>` or `http_proxy=` (empty),
 *           node connected itself, resolving the name again: through the bin, both calls of
 *           `mcp__w__echo` went to a service on this machine's loopback, the user's
 *           `authorization` header with them, and its answer came back to the model. Class: a
 *           security decision that rests on another component's reading of the same input (two
 *           parsers). Rule: heldFetch never lets anything else resolve a held name — it connects
 *           itself either way (straight, or a tunnel through the proxy, below), so a reading that
 *           differs from node's changes the way, never the address; the reading now mirrors node's
 *           (lower case first; an https request without an https proxy goes to the http one).
 *
 * ZH2 FIXED Behind the proxy, a held name's request went to the proxy by name, and the proxy
 *           resolved it again: the header's "a name it resolves to its own loopback reaches the
 *           proxy's machine, never this one" fails for a proxy on this machine (cntlm, px, a
 *           corporate agent at 127.0.0.1:3128) — through the bin, the rebound name's two calls
 *           reached this machine's loopback service through the local proxy, header and answer as
 *           in ZH1 — and a proxy elsewhere would reach its own intranet the same way (by reading;
 *           not run). Class: ZF2's
 *           rebinding, through a connection someone else resolves. Rule: a held name's request
 *           goes through a CONNECT tunnel the proxy opens to the address judged here (each address
 *           of the name public, at every connection), TLS on top named for the host. Behaviour
 *           change: behind a proxy, a public name this machine cannot resolve is refused (as it
 *           is without a proxy) instead of left to the proxy.
 *
 * ZH3 FIXED A background task's output reached the stream in pieces (`system/task_output`, with
 *           `includePartialMessages`, which the terminal mode turns on), each masked alone: a
 *           secret written in two writes was masked in neither. Through the bin, a background
 *           `printenv DEPLOY_PAT | head -c 12; sleep 0.5; printenv DEPLOY_PAT | tail -c +13` (the
 *           run's `env`, a registered secret) printed `ghpZH3secret` and `Value0123456789` in two
 *           stream-json messages, and the terminal's `/tasks <id>` joins the pieces and prints the
 *           whole key; BashOutput, which reads the whole buffer, masked it. Class: a secret split
 *           across the pieces of a stream (the model's deltas had streamMasker; task output did
 *           not). Rule: each task's pieces pass through one stream masker, which holds back a tail
 *           that could begin a secret until the next piece or the task's end tells; the kernel's
 *           `task` events carry the masked pieces too.
 *
 * ZH4 FIXED ZF2's fix held a name to public addresses only when its first answer held one; a name
 *           whose first answer was private only was "the user's local service" and went to
 *           `fetch`, which resolves again at every connection. The attacker's DNS answering an
 *           intranet address (10.9.9.9) to heldFetch's judgement, the server's public address to
 *           `fetch`'s own lookup, and 127.0.0.1 once the tools were listed: through the bin, both
 *           `mcp__w__echo` calls reached this machine's loopback service with the user's
 *           `authorization` header, its answer the tool's result — ZF2 whole again. Class: a
 *           judgement that hands the connection to code that resolves again (ZF2's, by the other
 *           branch). Rule: no configured name is reached through `fetch` any more; every
 *           connection's own lookup holds the name to the addresses of its first answer that are
 *           not public (none when it held a public one) or public ones: `localhost` stays
 *           `localhost`, an intranet server its own address.
 *
 * ZH5 FIXED heldFetch handed an endpoint given by its address (an IP literal) to `fetch`, which follows
 *           redirects without judging them: a SearXNG backend configured as
 *           `http://93.184.216.34:<port>` answering 302 to `http://127.0.0.1:<port>/search…` made
 *           the search go to this machine's loopback service, and its answer (`INTERNAL-SERVICE-
 *           ANSWER`) came back to the model as the results, through the bin. (An MCP server's
 *           redirect stopped at the SDK's same-origin policy; an HTTP hook asks for `manual`.)
 *           Class: ZH4's — a request handed to code that decides where it goes after the check.
 *           Rule: heldFetch hands nothing to `fetch`; an address is its own first answer, held as
 *           a name is, and no redirect is followed there (the caller judges each hop: the MCP
 *           client's serverFetch does; the search backend reports the 302).
 *
 * ZH6 FIXED A configured value is a secret only once a program has been handed it: the run's `env`
 *           values (ZC6) when the first Bash call starts, an HTTP hook's URL parts (ZF3) when it
 *           first runs. Before that they were shown as they are: through the bin, the model's
 *           Read of ubiquity.config.mjs printed `DEPLOY_PAT: "ghpZH6…"` and the SearXNG
 *           backend's key in its URL path (registered at the first search) and a language
 *           server's env value (registered when it starts, at the LSP tool's first call for its
 *           files), and its Read of
 *           .ubiquity/settings.json the Stop hook's webhook key, in the stream and the transcript;
 *           the same Read after one Bash call showed `[redacted]`. Class: a secret registered at
 *           its first use instead of when it is configured. Rule: the run's `env` and every
 *           configured hook's URL (the settings files', the options', an agent's or skill's
 *           scoped hooks) are registered when the hooks are read, the search backend's URL when
 *           the options are resolved, a language server's env with its arguments when the servers
 *           are read: before any tool runs.
 *
 * ZH7 FIXED The credentials git keeps in a repository's config (ZE7: a remote URL's password, an
 *           extraheader) were registered for the run's repository's own `.git/config` only: its
 *           submodules' configs (`.git/modules/<name>/config`, where `git submodule` keeps each
 *           one's remote) were not read. Through the bin, the model's Read of
 *           `.git/modules/vendor/lib/config` printed `https://ci:zh7Submodule…@git.example.com/…`
 *           in the stream and the transcript; in a linked worktree (`git worktree add`, what an
 *           agent's `isolation: "worktree"` makes) only the worktree's own git folder was read,
 *           not the repository's config its `commondir` names: `git remote -v` there printed the
 *           token the main checkout masked. Class: ZE7's, a credential registered for one of the
 *           places git keeps the same setting. Rule: the common git folder of a worktree and the
 *           submodules' configs under each (nested ones too; git's own data folders skipped,
 *           bounded) are read with the run's git folder.
 *
 * Tally: about 28 constructs tried — 15 through the bin (node's reading of the proxy variables, two
 * ways; a local proxy; a first answer from the intranet; a redirect from an address-configured
 * SearXNG backend and MCP server; a background task's split output; the model's first Reads of the
 * config and settings files holding the run's env, a webhook's key and a search backend's key; the
 * same task output read whole by BashOutput; a language server's env in the config; a submodule's
 * git config; a worktree's `git remote -v`), the rest by reading the code; 12 got through, in 7 findings (ZH1 2, ZH2 1, ZH3 1,
 * ZH4 1, ZH5 1, ZH6 4, ZH7 2), all fixed.
 * Held: an address-configured MCP server's redirect (the SDK's same-origin policy); BashOutput
 * (reads the whole buffer, masked); by reading the code: the terminal's `@file` mentions (a stat,
 * then Read through the funnel, judged as the model's own call), `/tasks <id>` (the masked message
 * stream, shown through terminalText), `/rewind`'s short ids (one listed checkpoint's prefix, then
 * the plan and a y/N question), the trust question asked again after /clear (digests, as at the
 * start), `readOption` (reads options the kernel validated, through the owner's schema), Codex
 * `--profile` names (letters, digits, `-`, `_`: no path), MCP server names touching `__` (refused),
 * a headersHelper's failure (its stderr, not its output), HTTP hooks (redirects `manual`), the
 * proxy's credentials (never in the tunnel's errors).
 * Left open: behind a proxy, a public name this machine cannot resolve is now refused (a network
 * whose only resolver is the proxy needs the endpoint's address in the config), and a proxy that
 * allows CONNECT only to names refuses the tunnel to an address; a held connection kept alive is
 * reused without a new lookup (it was judged when opened); credentials in the config of a separate
 * repository nested in the project (its own `.git`, not a submodule) are not registered (ZE7, ZH7);
 * the search backend's 302 is reported without saying redirects are not followed.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { heldFetch } from "../../plugins/web/held-fetch";
import { attacker } from "./scripted-attacker";
import { binPath, runCli, streamMessages } from "../helpers/project";
import { attackBench } from "./attack-bench";

const KEY = "sk-test-redteam7zh";
const DEPLOY_PAT = "ghpZH3secretValue0123456789";
const WEBHOOK_KEY = "zh6WebhookSecret0123456789";
const SEARCH_KEY = "zh6SearchKey0123456789abc";
const LSP_KEY = "zh6LspLicense0123456789abc";

const { project, serve, env, attack } = attackBench({
  name: "rt7zh",
  model: "openai:gpt-4.1",
  key: KEY,
  fill: (p) => {
    writeFileSync(
      join(p.cwd, "ubiquity.config.mjs"),
      `export default ${JSON.stringify({
        sandbox: false,
        env: { DEPLOY_PAT },
        webSearch: { native: false, backend: { type: "searxng", url: `http://127.0.0.1:9/${SEARCH_KEY}` } },
        // A language server starts at the LSP tool's first call for its files: never, in these runs.
        lspServers: {
          ts: {
            command: "typescript-language-server",
            args: ["--stdio"],
            extensionToLanguage: { ".ts": "typescript" },
            env: { LSP_LICENSE: LSP_KEY },
          },
        },
      })};\n`,
    );
    // A Slack-style webhook (its key the URL's last part) as a Stop hook: it runs at the run's end.
    mkdirSync(join(p.cwd, ".ubiquity"));
    writeFileSync(
      join(p.cwd, ".ubiquity", "settings.json"),
      JSON.stringify({
        hooks: { Stop: [{ hooks: [{ type: "http", url: `http://127.0.0.1:9/services/T0001/B0002/${WEBHOOK_KEY}` }] }] },
      }),
    );
  },
});

/** Can this machine make a user, network and mount namespace (the rebinding's own DNS and "internet")? */
const UNSHARE = spawnSync("unshare", ["-Urnm", "true"]).status === 0;

type ProxyCase = {
  hits: string[];
  tunnels: string[];
  results: { content: string; isError: boolean }[];
  stderr: string;
};

/** The proxy fixture's bin runs (one per case) in a namespace of their own. */
const proxyRuns = (cases: string[]): Record<string, ProxyCase> => {
  const work = realpathSync(mkdtempSync(join(tmpdir(), "ubq-rt7zh-px-")));
  try {
    const fixture = join(import.meta.dirname, "fixtures", "proxy-rebind-run.mjs");
    const run = spawnSync("unshare", ["-Urnm", process.execPath, fixture, binPath, work, ...cases], {
      encoding: "utf8",
      timeout: 250_000,
    });
    expect(run.status, run.stderr).toBe(0);
    return JSON.parse(run.stdout.trim().split("\n").pop()!) as Record<string, ProxyCase>;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};

describe("ZH1, ZH2, ZH4, ZH5: a held name behind the environment's proxy (NODE_USE_ENV_PROXY), rebound to the loopback", () => {
  it.skipIf(!UNSHARE)(
    "through the bin: neither node's own reading of the variables, a local proxy nor a first answer from the intranet reaches the loopback service",
    { timeout: 260_000 },
    () => {
      const runs = proxyRuns(["case", "empty", "local", "private", "search"]);
      const search = runs.search!;
      delete runs.search;
      expect(search.hits, "the search went to a service on this machine").toEqual([]);
      expect(search.results).toHaveLength(1);
      expect(search.results[0]!.content).not.toContain("INTERNAL-SERVICE-ANSWER");
      expect(search.results[0]!.isError).toBe(true);
      for (const [name, run] of Object.entries(runs)) {
        expect(run.hits, `${name}: the user's MCP requests (its token header with them) reached this machine`).toEqual(
          [],
        );
        expect(run.results, `${name}: ${run.stderr}`).toHaveLength(2);
        for (const r of run.results) {
          expect(r.isError, name).toBe(true);
          expect(r.content).not.toContain("INTERNAL-SERVICE-ANSWER");
          expect(r.content).toMatch(
            /refused to connect to mcp\.rebind\.example: mcp\.rebind\.example resolves to 127\.0\.0\.1/,
          );
          if (name === "private") expect(r.content).toContain("not one it first resolved to (10.9.9.9)");
        }
      }
      // The local proxy was asked for tunnels to the address judged, never for the name.
      expect(runs.local!.tunnels.length).toBeGreaterThan(0);
      for (const t of runs.local!.tunnels) expect(t).toMatch(/^93\.184\.216\.34:\d+$/);
    },
  );
});

describe("ZH3: a secret split across a background task's output pieces", () => {
  it("through the bin: no task_output piece, nor the pieces joined, holds the key or its halves", {
    timeout: 60_000,
  }, async () => {
    const p = project();
    await serve(
      attacker([
        {
          name: "Bash",
          input: {
            command: "printenv DEPLOY_PAT | head -c 12; sleep 0.5; printenv DEPLOY_PAT | tail -c +13; sleep 0.3",
            run_in_background: true,
          },
        },
        "sleep 2",
        { name: "BashOutput", input: { bash_id: "shell-1" } },
      ]),
    );
    const run = await runCli(
      [
        "run",
        "--model",
        "openai:gpt-4.1",
        "--output-format",
        "stream-json",
        "--include-partial-messages",
        "--permission-mode",
        "bypassPermissions",
        "do the task",
      ],
      p.cwd,
      env(p),
    );
    expect(run.code, run.stderr).toBe(0);
    const pieces = streamMessages(run.stdout)
      .filter((m) => m.type === "system" && (m as { subtype?: string }).subtype === "task_output")
      .map((m) => (m as unknown as { text: string }).text);
    const joined = pieces.join("");
    // The task printed: the pieces hold its output, masked.
    expect(joined, run.stdout).toContain("[redacted]");
    expect(joined).not.toContain(DEPLOY_PAT);
    for (const half of [DEPLOY_PAT.slice(0, 12), DEPLOY_PAT.slice(12)]) expect(run.stdout).not.toContain(half);
  });
});

describe("ZH4's control: a name the user's machine resolves to its own services stays reachable there", () => {
  it("a loopback name is reached at its loopback address, and refused at another private one", async () => {
    // Each answer closes its connection: every request's connection is looked up (and judged) anew.
    const server = createServer((req, res) =>
      res.writeHead(200, { connection: "close" }).end(`local service ${req.url}`),
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const port = (server.address() as AddressInfo).port;
      let answer = ["127.0.0.1"];
      const fetchHeld = heldFetch(async () => answer);
      const first = await fetchHeld(new URL(`http://svc.test:${port}/a`));
      expect(await first.text()).toBe("local service /a");
      expect(await (await fetchHeld(new URL(`http://svc.test:${port}/b`))).text()).toBe("local service /b");
      answer = ["10.9.9.9"];
      await expect(fetchHeld(new URL(`http://svc.test:${port}/c`))).rejects.toThrow(
        /svc\.test resolves to 10\.9\.9\.9: .*not one it first resolved to \(127\.0\.0\.1\)/,
      );
    } finally {
      server.close();
    }
  });
});

describe("ZH6: a configured secret before its first use", () => {
  it("through the bin: the model's first Reads of the files that hold the run's env and a webhook's key show neither", {
    timeout: 60_000,
  }, async () => {
    const { out, run, home } = await attack(
      [
        { name: "Read", input: { file_path: "ubiquity.config.mjs" } },
        { name: "Read", input: { file_path: ".ubiquity/settings.json" } },
      ],
      [],
    );
    expect(out[0]!.content).toContain('"DEPLOY_PAT":"[redacted]"');
    expect(out[0]!.content).toContain("http://127.0.0.1:9/[redacted]");
    expect(out[0]!.content).toContain('"LSP_LICENSE":"[redacted]"');
    expect(out[1]!.content).toContain("/services/T0001/B0002/[redacted]");
    expect(run.stdout).not.toContain(DEPLOY_PAT);
    expect(run.stdout).not.toContain(WEBHOOK_KEY);
    expect(run.stdout).not.toContain(SEARCH_KEY);
    expect(run.stdout).not.toContain(LSP_KEY);
    const sessions = join(home, ".ubiquity", "sessions");
    const transcripts = readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((f) =>
      f.endsWith(".jsonl"),
    );
    expect(transcripts.length).toBeGreaterThan(0);
    for (const f of transcripts) {
      const text = readFileSync(join(sessions, f), "utf8");
      expect(text).not.toContain(DEPLOY_PAT);
      expect(text).not.toContain(WEBHOOK_KEY);
      expect(text).not.toContain(SEARCH_KEY);
      expect(text).not.toContain(LSP_KEY);
    }
  });
});

describe("ZH7: a submodule's git config", () => {
  it("through the bin: a token in a submodule's remote URL is masked as the repository's own is", {
    timeout: 60_000,
  }, async () => {
    const p = project();
    execFileSync("git", ["init", "-q", p.cwd]);
    const token = "zh7SubmoduleToken0123456789";
    mkdirSync(join(p.cwd, ".git", "modules", "vendor", "lib"), { recursive: true });
    writeFileSync(
      join(p.cwd, ".git", "modules", "vendor", "lib", "config"),
      `[remote "origin"]\n\turl = https://ci:${token}@git.example.com/o/lib.git\n`,
    );
    const { out, run } = await attack(
      [{ name: "Read", input: { file_path: ".git/modules/vendor/lib/config" } }],
      [],
      p,
    );
    expect(out[0]!.content).toContain("https://ci:[redacted]@git.example.com/o/lib.git");
    expect(run.stdout).not.toContain(token);
  });
});

describe("ZH7: a linked worktree's repository config", () => {
  it("through the bin: `git remote -v` in a worktree masks the token of the repository's remote", {
    timeout: 60_000,
  }, async () => {
    const p = project();
    const token = "zh7WorktreeToken0123456789";
    const git = (...args: string[]) => execFileSync("git", ["-C", p.cwd, ...args], { stdio: "ignore" });
    git("init", "-q");
    git("-c", "user.email=a@b.example", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "start");
    git("remote", "add", "origin", `https://ci:${token}@git.example.com/o/r.git`);
    const wt = `${p.cwd}-wt`;
    try {
      git("worktree", "add", "-q", wt);
      writeFileSync(join(wt, "ubiquity.config.mjs"), readFileSync(join(p.cwd, "ubiquity.config.mjs")));
      const { out, run } = await attack(["git remote -v"], ["--allowedTools", "Bash"], { cwd: wt, home: p.home });
      expect(out[0]!.content).toContain("https://ci:[redacted]@git.example.com/o/r.git");
      expect(run.stdout).not.toContain(token);
    } finally {
      rmSync(wt, { recursive: true, force: true });
    }
  });
});
