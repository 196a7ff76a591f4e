/** Parity: retries and the fallback model (seed README: "Retries", "Credentials" fallback_model). */
import { describe, expect, it } from "vitest";
import { scriptedModel } from "ubiquity/testing";
import { ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { run } from "./helpers";

const temp = tempDirs();
const now = { "retry-after": "0" };

describe("retries", () => {
  it("a 429 is a pause, not the end: the request is sent again and the run succeeds", async () => {
    const model = scriptedModel([
      { error: { status: 429, headers: now } },
      { error: { status: 503, headers: now } },
      "ok",
    ]);
    const r = resultOf(await run("x", { model, cwd: temp(), maxRetries: 3 }));
    expect(r).toMatchObject({ subtype: "success", result: "ok" });
    expect(model.requests).toHaveLength(3);
  });

  it("a 400 is not retried", async () => {
    const model = scriptedModel([{ error: { status: 400, message: "malformed" } }, "never"]);
    const r = resultOf(await run("x", { model, cwd: temp(), maxRetries: 3 }));
    expect(r).toMatchObject({ subtype: "error_during_execution", isError: true });
    expect(model.requests).toHaveLength(1);
  });

  it("maxRetries: 0 sends once", async () => {
    const model = scriptedModel([{ error: { status: 429, headers: now } }, "never"]);
    const r = resultOf(await run("x", { model, cwd: temp(), maxRetries: 0 }));
    expect(r.isError).toBe(true);
    expect(model.requests).toHaveLength(1);
  });

  it("the retry budget ends: after maxRetries the error is the run's", async () => {
    const model = scriptedModel(() => ({ error: { status: 529, headers: now } }));
    const r = resultOf(await run("x", { model, cwd: temp(), maxRetries: 2 }));
    expect(r.isError).toBe(true);
    expect(model.requests).toHaveLength(3);
  });

  it("fallbackModel answers when the main model keeps failing; the assistant message names it", async () => {
    const main = scriptedModel(() => ({ error: { status: 500, headers: now } }), { modelId: "main" });
    const fallback = scriptedModel(["from fallback"], { modelId: "backup" });
    const messages = await run("x", { model: main, fallbackModel: fallback, cwd: temp(), maxRetries: 1 });
    expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "from fallback" });
    expect(ofType(messages, "assistant").at(-1)!.model).toContain("backup");
  });
});
