/** The runner's small parts in-process: stdin reading, the prompt with piped text, did-you-mean, colours. */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { combinePrompt, readStdin } from "../../runner/stdin";
import { closest } from "../../src/suggest";
import { colorEnabled, createStyle } from "../../runner/style";
import { withoutKernelTerms } from "../../runner/render";

describe("readStdin", () => {
  it("with a prompt, an idle pipe gives up after the wait; data that flows is read to the end", async () => {
    // The idle pipe never ends, so an answer at all means the read gave up.
    const idle = new PassThrough();
    expect(await readStdin(idle, { bounded: true, firstByteMs: 50 })).toBe("");
    expect(idle.readableEnded).toBe(false);
    const flowing = new PassThrough();
    const read = readStdin(flowing, { bounded: true, firstByteMs: 50 });
    flowing.write("first ");
    setTimeout(() => flowing.end("and the rest, after the wait"), 150);
    expect(await read).toBe("first and the rest, after the wait");
  });

  it("without a prompt it waits for the end; a terminal gives nothing", async () => {
    const pipe = new PassThrough();
    const read = readStdin(pipe, { bounded: false, firstByteMs: 10 });
    setTimeout(() => pipe.end("late prompt"), 60);
    expect(await read).toBe("late prompt");
    expect(await readStdin(Object.assign(new PassThrough(), { isTTY: true }), { bounded: false })).toBe("");
  });

  it("combines the prompt and the piped text", () => {
    expect(combinePrompt("review this", "diff\n\n")).toBe("review this\n\n<stdin>\ndiff\n</stdin>");
    expect(combinePrompt("", "  the prompt  \n")).toBe("the prompt");
    expect(combinePrompt("hi", " \n")).toBe("hi");
  });
});

describe("closest", () => {
  it("finds typos, case and a missing ubiquity: prefix; nothing for far names", () => {
    const known = ["model", "maxTurns", "ubiquity:tool-bash", "ubiquity:tool-grep"];
    expect(closest("modle", known)).toBe("model");
    expect(closest("MaxTurns", known)).toBe("maxTurns");
    expect(closest("tool-bash", known)).toBe("ubiquity:tool-bash");
    expect(closest("ubiquity:tool-grpe", known)).toBe("ubiquity:tool-grep");
    expect(closest("temperature", known)).toBeUndefined();
  });
});

describe("colours and words", () => {
  it("NO_COLOR turns colours off, FORCE_COLOR on (FORCE_COLOR=0 off), a terminal decides otherwise", () => {
    expect(colorEnabled(true, {})).toBe(true);
    expect(colorEnabled(false, {})).toBe(false);
    expect(colorEnabled(true, { NO_COLOR: "1" })).toBe(false);
    expect(colorEnabled(false, { FORCE_COLOR: "1" })).toBe(true);
    expect(colorEnabled(true, { FORCE_COLOR: "0" })).toBe(false);
    expect(colorEnabled(true, { TERM: "dumb" })).toBe(false);
    expect(createStyle(false).error("x")).toBe("x");
    expect(createStyle(true).error("x")).not.toBe("x");
  });

  it("the kernel's options.model reads as the flag and the config file", () => {
    expect(
      withoutKernelTerms(
        'No model configured: set options.model (e.g. model: "openai:gpt-5", or "test" for the offline model) or the UBIQUITY_MODEL environment variable',
      ),
    ).toBe(
      "No model configured: pass --model (e.g. --model openai:gpt-5, or --model test for the offline model), set model in the config file, or the UBIQUITY_MODEL environment variable",
    );
  });

  it("the model plugin's openaiCompatible(…) advice reads as --base-url", () => {
    expect(
      withoutKernelTerms(
        'model "foo:bar": unknown provider "foo". Known providers: openai; for any OpenAI-compatible server pass openaiCompatible(model, { baseURL }) as the model',
      ),
    ).toBe(
      'model "foo:bar": unknown provider "foo". Known providers: openai; for any OpenAI-compatible server pass --base-url <its API root> with --model naming the model on it',
    );
  });

  it("the kernel's attribution reads as the plugin's name", () => {
    expect(withoutKernelTerms("[plugin ubiquity:model] hook model.resolve: unknown provider")).toBe(
      "plugin ubiquity:model: unknown provider",
    );
  });
});
