/**
 * A third-party plugin adds a runner command and a `run` flag: `ubiquity --help` lists the
 * command, `ubiquity hello` runs it, `ubiquity run --greeting x` reaches the plugin through the
 * option it claims, and without the plugin `hello` is an unknown command.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";

const CONFIG = `
const greeter = {
  name: "acme:greeter",
  configKey: "greeting",
  commands: {
    hello: {
      summary: "Say hello from the acme plugin",
      flags: { name: { type: "string", value: "<who>", description: "Whom to greet" } },
      async run({ values }, io) {
        io.stdout("hello " + (values.name ?? "world") + "\\n");
        return 0;
      },
    },
  },
  flags: {
    greeting: { type: "string", value: "<text>", group: "Acme", description: "What the acme plugin says", apply: (options, value) => { options.greeting = String(value); } },
  },
  apply(kernel) {
    kernel.hooks.session.start.tap("acme:greeter", (run) => { run.initExtra.greeting = run.options.greeting ?? null; });
  },
};
export default { plugins: [greeter] };
`;

let withPlugin: string;
let without: string;

beforeAll(() => {
  requireDist();
  withPlugin = tempProject({ "ubiquity.config.mjs": CONFIG });
  without = tempProject({});
});
afterAll(removeTempProjects);

describe("a plugin's command and run flag", () => {
  it.concurrent("--help lists the command; `ubiquity hello` runs it with its flags", async () => {
    const help = await runCli(["--help"], withPlugin);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ {2}hello +Say hello from the acme plugin$/m);
    const hello = await runCli(["hello", "--name", "you"], withPlugin);
    expect(hello.stderr).toBe("");
    expect(hello).toMatchObject({ code: 0, stdout: "hello you\n" });
    const own = await runCli(["hello", "--help"], withPlugin);
    expect(own.stdout).toContain("--name <who>");
  });

  it.concurrent("`run --greeting x` is in run --help under the plugin's group and reaches the plugin's option", async () => {
    const help = await runCli(["run", "--help"], withPlugin);
    expect(help.stdout).toMatch(/^Acme:\n {6}--greeting <text> +What the acme plugin says$/m);
    const run = await runCli(
      ["run", "--model", "test", "--output-format", "stream-json", "--greeting", "ahoy", "hi"],
      withPlugin,
    );
    expect(run.code).toBe(0);
    const init = run.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; subtype?: string; extra?: unknown })
      .find((m) => m.subtype === "init");
    expect(init).toMatchObject({ type: "system", extra: { greeting: "ahoy" } });
  });

  it.concurrent("without the plugin, `hello` is an unknown command and --greeting an unknown flag (exit 2)", async () => {
    const hello = await runCli(["hello"], without);
    expect(hello.code).toBe(2);
    expect(hello.stderr).toBe(
      'error: unknown command "hello"; to run it as a prompt: ubiquity -p "hello"; run `ubiquity --help` for the list\n',
    );
    const help = await runCli(["--help"], without);
    expect(help.stdout).not.toContain("hello");
    const run = await runCli(["run", "--model", "test", "--greeting", "ahoy", "hi"], without);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--greeting");
  });

  it.concurrent("in an untrusted folder, `hello` and --greeting are unknown, and the error says the folder's config was not loaded", async () => {
    const untrusted = { UBIQUITY_TRUST: "", HOME: tempProject({}, { packageJson: false }) };
    const hello = await runCli(["hello"], withPlugin, untrusted);
    expect(hello.code).toBe(2);
    expect(hello.stderr).toBe(
      'error: unknown command "hello"; this folder\'s ubiquity.config.mjs was not loaded, as the folder is not trusted: if its plugins add it, trust the folder with `ubiquity trust .` (or UBIQUITY_TRUST=1 for one run); run `ubiquity --help` for the list\n',
    );
    const run = await runCli(["run", "--model", "test", "--greeting", "ahoy", "hi"], withPlugin, untrusted);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^error: unknown flag --greeting; this folder's ubiquity\.config\.mjs was not loaded, as the folder is not trusted: .*`ubiquity trust \.`/,
    );
  });
});
