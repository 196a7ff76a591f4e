/**
 * What a newcomer's trial (zg, 2026-12-07: a Python developer — a FastAPI-style app with a `.venv`,
 * `pyproject.toml`, pytest, ruff, pip, pre-commit, a Makefile and a `.env` holding a database URL and
 * an API key — who uses Claude Code and keeps their `.claude/settings.json` allow rules
 * (`Bash(pytest:*)`, `Bash(ruff:*)`, `Bash(git commit:*)`, …) and its `Read(./.env)` deny rule; the
 * packed package in a Node folder of its own, run in the project with `--config`, `--compat claude`
 * and the sandbox on, as by default; a scripted model in the config; python 3.11 and pytest as this
 * machine has them, pip offline: PyPI is out of reach here) met:
 * - `Read(./.env)` in `permissions.deny` (Claude Code's advice for secrets) denied every command
 *   running a program the engine does not know — `.venv/bin/python -m pytest`, `pip install`,
 *   `ruff format` — "python is not a program the engine knows, so it may read any file, which could
 *   be a file this rule names", whatever the allow rules, and named no way out. Fail closed stands
 *   (such a program can read a committed `.env` from git's objects, which no sandbox mask covers);
 *   the denial now says an allow rule does not lift a deny rule and names the two ways out (an ask
 *   rule; removing the rule), and the sandbox guide's "Python projects" says the same;
 * - `Bash(pytest:*)` did not cover `pytest -q` ("a rule must name more than the program", pytest
 *   runs the project's code) and the refusal suggested no rule, where `make test` got
 *   `Bash(make test:*)`: it now names the user's rule that names only the program and suggests the
 *   exact command (`Bash(pytest -q)`), which runs the tests in the sandbox;
 * - the dev server in a background shell, then `curl localhost:8000` in the next call: "Couldn't
 *   connect to server", marked "(the sandbox has no network access)", and the system prompt said only
 *   "connections (localhost too) fail". Each sandboxed command has its own network namespace, so its
 *   localhost is its own: the mark now says so with the fixes (one command for server and curl, or
 *   the user's server allowed as `localhost:PORT`), and the system prompt tells the agent;
 * - `pip install` with no network waited out five retries (~9 s a call) and its mark named no fix:
 *   the sandbox sets `PIP_RETRIES=1` (one retry keeps the error that says why), and a refused
 *   connection's mark names `sandbox.network.allowedDomains`;
 * - `Bash(uv:*)`, in the developer's settings, covered `uv run rm -rf ~` (outside the sandbox too) as a
 *   program the user vouched for, where `Bash(npx:*)` does not cover `npx …`: `uv run`, `uvx`, and the
 *   `run` of poetry, pipenv, pdm, hatch, rye, pixi and conda, and `bundle exec`, run any command in the
 *   project's environment, so, as pytest, they need a rule naming what they run (`Bash(uv run
 *   pytest:*)`), and the refusal says so instead of "uv is not a program the engine knows, so only a
 *   rule that names it covers it" beside the rule naming it (npx's said the same);
 * - `python -m venv .venv2` made by the agent lost its `bin/activate*` (protected: a shell sources
 *   them), marked as removed and nothing more: the mark now says the venv works without them (its
 *   python and pip by path) and that a venv made in the user's terminal has them;
 * - the docs had nothing for a non-JS project: docs/guide/sandbox.md has "Python projects" (a venv
 *   elsewhere, pip and PyPI's hosts, a dev server, `.env` and tests, the two rules above).
 * What held: pytest's `.pytest_cache` and `__pycache__`, pip into the project's venv, ruff, and
 * `git commit` running pre-commit's hook all worked sandboxed; `.env` never reached the model, the
 * transcript or a command (`cat .env` and a test opening it were refused, marked as the sandbox's).
 * Noticed and left for the team: in the sandbox, project code is not held to Read rules (red team j,
 * J3: the sandbox masks the rule's files), but a committed `.env` is in git's objects, which no mask
 * covers: under `Read(./.env)`, `make show` (a recipe `git show HEAD:.env`, allowed by `Bash(make
 * show)`) printed the key to the model while `git show HEAD:.env` itself was denied. Keeping unknown
 * programs (python) denied there is the same judgement the other way; the two want one decision.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPacked, removePackedDirs, tempDir } from "../helpers/packed";
import { requireDist } from "../helpers/project";

interface Line {
  type: string;
  toolName?: string;
  output?: { content: string; isError: boolean };
}

// The developer's config: the Bash calls of a step, from ZG_CALLS; every request the model got, to ZG_DUMP.
const CONFIG = `import { defineConfig } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { writeFileSync } from "node:fs";
const calls = JSON.parse(process.env.ZG_CALLS);
const model = scriptedModel([
  ...calls.map((c) => ({ toolCalls: [typeof c === "string" ? { toolName: "Bash", input: { command: c } } : c] })),
  { text: "done" },
]);
process.on("exit", () => writeFileSync(process.env.ZG_DUMP, JSON.stringify(model.requests)));
export default defineConfig({ model });
`;

const DB = "postgres://shop:hunter2-zg@localhost:5432/shop";
const KEY = "sk_live_trialzg_0123456789";

/** Does this machine's python have pytest (the trial's tests run the real one)? */
function python(): string | undefined {
  try {
    return execFileSync("python3", ["-c", "import sys, pytest; print(sys.executable)"], { encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
}
const py = python();

let tool: string | undefined;
/** The Node folder the developer installed the packed package in, with the config. */
function toolDir(): string {
  if (tool) return tool;
  tool = tempDir("ubiquity-trial-zg-tool-");
  writeFileSync(join(tool, "package.json"), JSON.stringify({ name: "agent", private: true, type: "module" }));
  installPacked(tool);
  writeFileSync(join(tool, "zg.config.mjs"), CONFIG);
  return tool;
}

/** The Python project: a venv (this machine's pytest seen through system site-packages), tests, a .env. */
function shop(settings: object): string {
  const dir = tempDir("ubiquity-trial-zg-shop-");
  execFileSync(py!, ["-m", "venv", "--without-pip", "--system-site-packages", join(dir, ".venv")]);
  writeFileSync(
    join(dir, ".venv", "bin", "pytest"),
    `#!${dir}/.venv/bin/python\nimport sys, pytest\nsys.exit(pytest.main())\n`,
    {
      mode: 0o755,
    },
  );
  writeFileSync(
    join(dir, "pyproject.toml"),
    '[project]\nname = "shop"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n',
  );
  mkdirSync(join(dir, "app"));
  writeFileSync(join(dir, "app", "__init__.py"), "");
  writeFileSync(join(dir, "app", "prices.py"), "def total(items):\n    return sum(p * q for p, q in items)\n");
  mkdirSync(join(dir, "tests"));
  writeFileSync(
    join(dir, "tests", "test_prices.py"),
    "from app.prices import total\n\ndef test_total():\n    assert total([(2, 3), (1, 4)]) == 10\n",
  );
  writeFileSync(join(dir, ".env"), `DATABASE_URL=${DB}\nSTRIPE_API_KEY=${KEY}\n`);
  mkdirSync(join(dir, ".claude"));
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify(settings));
  return dir;
}

const home = () => (homeDir ??= tempDir("ubiquity-trial-zg-home-"));
let homeDir: string | undefined;

interface Run {
  code: number | null;
  out: Line[];
  stderr: string;
  /** What the model was sent, every request as JSON. */
  sent: string;
  /** Every file of the session folder, concatenated. */
  transcript: string;
}

/** `ubiquity -p` in the project, its venv activated in the developer's shell, the model making `calls`. */
function run(dir: string, calls: unknown[], args: string[] = []): Promise<Run> {
  const dump = join(dir, "..", `${dir.split("/").at(-1)}-requests.json`);
  const sessions = tempDir("ubiquity-trial-zg-sessions-");
  const child = spawn(
    process.execPath,
    [
      join(toolDir(), "node_modules", "ubiquity", "bin", "ubiquity.mjs"),
      "-p",
      "--config",
      join(toolDir(), "zg.config.mjs"),
      "--compat",
      "claude",
      "--trust",
      "--output-format",
      "stream-json",
      "--session-dir",
      sessions,
      ...args,
      "work on the shop",
    ],
    {
      cwd: dir,
      env: {
        ...process.env,
        HOME: home(),
        PATH: `${dir}/.venv/bin:${process.env.PATH}`,
        VIRTUAL_ENV: `${dir}/.venv`,
        ZG_CALLS: JSON.stringify(calls),
        ZG_DUMP: dump,
        UBIQUITY_REQUIRE_SANDBOX: "1",
        DEBUG: "",
        NO_COLOR: "1",
        UBIQUITY_TRUST: "",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) =>
    child.on("close", (code) => {
      const transcript = readdirSync(sessions, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"))
        .join("\n");
      resolve({
        code,
        out: stdout
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l) as Line),
        stderr,
        sent: readFileSync(dump, "utf8"),
        transcript,
      });
    }),
  );
}

const results = (r: Run) => r.out.filter((l) => l.type === "tool_result").map((l) => l.output!);

/** The secrets of `.env` reached neither the model, nor the transcript, nor stdout. */
function noSecrets(r: Run): void {
  for (const secret of [DB, KEY, "hunter2-zg"]) {
    expect(r.sent).not.toContain(secret);
    expect(r.transcript).not.toContain(secret);
    expect(JSON.stringify(r.out)).not.toContain(secret);
  }
}

beforeAll(() => requireDist());
afterAll(() => removePackedDirs());

describe.skipIf(!py)("a Python developer's day, sandbox on", () => {
  it("`Read(./.env)` denies `python -m pytest` naming the ways out; as an ask rule the command asks; .env never leaks", async () => {
    const allow = ["Bash(python -m pytest:*)", "Bash(pip install:*)", "Bash(ruff:*)", "Bash(cat:*)"];
    const denied = await run(shop({ permissions: { allow, deny: ["Read(./.env)"] } }), [
      "python -m pytest -q",
      "cat .env",
    ]);
    expect(denied.code, denied.stderr).toBe(0);
    const [pytest, cat] = results(denied);
    expect(pytest!.isError).toBe(true);
    expect(pytest!.content).toContain("Permission denied: the rule Read(./.env)");
    expect(pytest!.content).toContain("python is not a program the engine knows");
    expect(pytest!.content).toContain("An allow rule does not lift a deny rule");
    expect(pytest!.content).toContain("make it an ask rule (each one then asks) or remove it");
    expect(pytest!.content).toContain('"Python projects" in the sandbox guide');
    expect(cat!.isError).toBe(true);
    noSecrets(denied);

    // The first way out: the same rule as an ask rule. `-p` has nobody to ask, so it is refused as a question.
    const asked = await run(shop({ permissions: { allow, ask: ["Read(./.env)"] } }), ["python -m pytest -q"]);
    const [question] = results(asked);
    expect(question!.content).toContain("Bash needs approval: the rule Read(./.env)");
    expect(question!.content).not.toContain("Permission denied");

    // The second: without the rule, the tests run in the sandbox, and a test opening .env is refused there.
    const dir = shop({ permissions: { allow } });
    writeFileSync(join(dir, "tests", "test_env.py"), "def test_env():\n    open('.env').read()\n");
    const ran = await run(dir, ["python -m pytest -q", "cat .env"]);
    const [tests, cat2] = results(ran);
    expect(tests!.content).toContain("1 failed, 1 passed");
    expect(tests!.content).toContain("PermissionError");
    expect(tests!.content).toContain("(this path is unreadable inside the sandbox)");
    expect(readdirSync(dir)).toContain(".pytest_cache");
    expect(cat2!.content).toContain("[blocked by the sandbox: cat: .env: Permission denied");
    noSecrets(ran);
  });

  it("`Bash(pytest:*)` is named as naming only the program, and the rule suggested runs the tests", async () => {
    const dir = shop({ permissions: { allow: ["Bash(pytest:*)", "Bash(ruff:*)"] } });
    const refused = await run(dir, ["pytest -q"]);
    const [first] = results(refused);
    expect(first!.isError).toBe(true);
    expect(first!.content).toContain("pytest runs the project's test and configuration code");
    expect(first!.content).toContain("and Bash(pytest:*) names only the program");
    expect(first!.content).toContain('pre-approve the call with allowedTools (["Bash(pytest -q)"]');
    const suggested = await run(dir, ["pytest -q"], ["--allowedTools", "Bash(pytest -q)"]);
    const [second] = results(suggested);
    expect(second, second!.content).toMatchObject({ isError: false });
    expect(second!.content).toContain("1 passed");
  });

  it("`Bash(uv:*)` does not cover `uv run …` (any command, as npx's); `Bash(uv run pytest:*)` does", async () => {
    const dir = shop({ permissions: { allow: ["Bash(uv:*)"] } });
    // uv is not on this machine: a stand-in named the same, which runs `uv run`'s command as uv would.
    writeFileSync(join(dir, ".venv", "bin", "uv"), '#!/bin/sh\n[ "$1" = run ] && shift\nexec "$@"\n', { mode: 0o755 });
    const refused = await run(dir, ["uv run touch ../planted", "uv run pytest -q"]);
    const [touch, pytest] = results(refused);
    expect(touch!.content).toContain("uv run runs a command in the project's environment");
    expect(touch!.content).toContain("and Bash(uv:*) names only the program");
    expect(readdirSync(join(dir, ".."))).not.toContain("planted");
    expect(pytest!.content).toContain('pre-approve the call with allowedTools (["Bash(uv run pytest:*)"]');
    const ran = await run(dir, ["uv run pytest -q"], ["--allowedTools", "Bash(uv run pytest:*)"]);
    const [tests] = results(ran);
    expect(tests, tests!.content).toMatchObject({ isError: false });
    expect(tests!.content).toContain("1 passed");
  });

  it("a virtualenv the agent makes loses its activation scripts, and the mark says it works without them", async () => {
    const dir = shop({ permissions: {} });
    const r = await run(
      dir,
      ["python3 -m venv --without-pip .venv2", ".venv2/bin/python -c 'print(6 * 7)'"],
      ["--allowedTools", "Bash"],
    );
    const [made, ran] = results(r);
    expect(made!.content).toContain("[blocked by the sandbox: .venv2/bin/activate is protected");
    expect(made!.content).toContain("the virtualenv works without it: run its bin/python and bin/pip by path");
    expect(ran).toEqual({ content: "42", isError: false, metadata: expect.anything() });
  });

  it("a dev server in a background shell is out of reach of the next command, which says why and the fix", async () => {
    const dir = shop({ permissions: { allow: ["Bash(curl:*)"] } });
    const server = "python -m http.server 8000 --bind 127.0.0.1";
    const r = await run(
      dir,
      [
        { toolName: "Bash", input: { command: server, run_in_background: true } },
        "curl -sS http://127.0.0.1:8000/pyproject.toml",
        // The fix it names: the server and the call in one command (curl retried until the server listens).
        `${server} & for i in $(seq 100); do curl -sf http://127.0.0.1:8000/pyproject.toml && break; sleep 0.1; done`,
        "curl -sS https://pypi.org/simple/six/; printenv PIP_RETRIES",
      ],
      ["--allowedTools", "Bash"],
    );
    expect(r.code, r.stderr).toBe(0);
    const [, apart, together, pypi] = results(r);
    expect(apart!.content).toContain("Failed to connect to 127.0.0.1 port 8000");
    expect(apart!.content).toContain("localhost in it is this command's own");
    expect(apart!.content).toContain("start the server and call it in the same command");
    expect(apart!.content).toContain('allow "localhost:PORT" in sandbox.network.allowedDomains');
    expect(together!.content).toContain('name = "shop"');
    // PyPI is out of reach: the mark names the setting; pip retries once, not five times.
    expect(pypi!.content).toContain("the user can let hosts through with sandbox.network.allowedDomains");
    expect(pypi!.content).toMatch(/^1$/m);
    // The agent was told before it tried.
    expect(r.sent).toContain("Each command has its own localhost");
  });
});
