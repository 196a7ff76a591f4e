/**
 * What a model or a program writes reaches a terminal with its control characters shown, not
 * obeyed: an answer steered by a prompt injection (a web page, a file, a command's output) could
 * otherwise set the clipboard (OSC 52), retitle the window or rewrite what is on screen. Through
 * the bin under a real pseudo-terminal (util-linux `script`), against a fake provider; a pipe
 * still gets the text as the model wrote it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer } from "../../src/testing/index";
import { requireDist, runCli, tempProject } from "../helpers/project";
import { inTerminal } from "../helpers/terminal";
import { terminalText } from "../../runner/render";

const OSC52 = "\u001b]52;c;ZXZpbA==\u0007";
const TITLE = "\u001b]0;pwned\u0007";
const ANSWER = `copy this:${OSC52} and${TITLE} done\r\nsecond\tline`;

let server: FakeProviderServer;
beforeAll(async () => {
  requireDist();
  server = await startProviderServer(() => ANSWER);
});
afterAll(() => server.close());

const env = () => ({ HOME: tempProject({}), OPENAI_API_KEY: "sk-test-escapes", OPENAI_BASE_URL: server.baseURL });

describe("terminalText", () => {
  it("keeps line ends and tabs, shows every other control character as an escape", () => {
    expect(terminalText(ANSWER)).toBe("copy this:\\x1b]52;c;ZXZpbA==\\x07 and\\x1b]0;pwned\\x07 done\nsecond\tline");
    expect(terminalText("a\rb\u009bc\u007f")).toBe("a\\x0db\\x9bc\\x7f");
  });
});

describe("the model's answer", () => {
  it("under a terminal (`ubiquity run -p`): the escapes are shown, none is sent", async () => {
    const cwd = tempProject({});
    const { code, screen } = await inTerminal(cwd, ["run", "-p", "--model", "openai:gpt-4.1", "go"], env(), []);
    expect(code, screen).toBe(0);
    expect(screen).toContain("copy this:\\x1b]52;c;ZXZpbA==\\x07 and\\x1b]0;pwned\\x07 done");
    expect(screen).not.toContain("\u001b]");
    expect(screen).not.toContain("\u0007");
  });

  it("under a terminal, streamed (`ubiquity run`): the same", async () => {
    const cwd = tempProject({});
    const { code, screen } = await inTerminal(cwd, ["run", "--model", "openai:gpt-4.1", "go"], env(), []);
    expect(code, screen).toBe(0);
    expect(screen).toContain("\\x1b]52;c;ZXZpbA==\\x07");
    expect(screen).not.toContain("\u001b]");
  });

  it("to a pipe: the text as the model wrote it (the program reading it decides)", async () => {
    const cwd = tempProject({});
    const run = await runCli(["run", "-p", "--model", "openai:gpt-4.1", "go"], cwd, env());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(OSC52);
  });
});
