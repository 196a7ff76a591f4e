/**
 * No OpenTelemetry package loads unless telemetry is on: checked in child processes that record
 * every package Node resolves while the package entry is imported and a run goes by. With
 * telemetry on the same probe sees them load (so it can see them); a missing package is an error
 * naming the install command.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { loadOtel, type ImportModule } from "../../plugins/telemetry/index";
import { TelemetryUnavailableError } from "ubiquity/plugins/telemetry";

const root = pathToFileURL(fileURLToPath(new URL("../../", import.meta.url))).href;
const probe = fileURLToPath(new URL("./fixtures/lazy-probe.mjs", import.meta.url));

function probeRun(mode: "off" | "on") {
  const out = execFileSync(process.execPath, [probe, root, mode], { encoding: "utf8", timeout: 240_000 });
  return JSON.parse(out.trim().split("\n").at(-1)!) as {
    afterImport: string[];
    afterRun: string[];
    isError: boolean;
    result: string;
  };
}

it("without telemetry, importing the package and running summon() loads no OpenTelemetry package", () => {
  const off = probeRun("off");
  expect(off.isError).toBe(false);
  expect(off.afterImport).toEqual([]);
  expect(off.afterRun).toEqual([]);
});

it("with telemetry: true, the packages load for the run (the probe sees them)", () => {
  const on = probeRun("on");
  expect(on.isError, on.result).toBe(false);
  expect(on.afterImport).toEqual([]);
  expect(on.afterRun).toEqual(expect.arrayContaining(["@ai-sdk/otel", "@opentelemetry/api"]));
});

it("a missing package is an error naming the install command", async () => {
  const missing: ImportModule = async (id) => {
    if (id === "@ai-sdk/otel")
      throw Object.assign(new Error("Cannot find package '@ai-sdk/otel'"), { code: "ERR_MODULE_NOT_FOUND" });
    return import(id);
  };
  const error = await loadOtel(missing).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TelemetryUnavailableError);
  expect((error as Error).message).toContain("npm i @opentelemetry/api @ai-sdk/otel");
  expect((error as Error).message).toContain("Cannot find package '@ai-sdk/otel'");
  const loaded = await loadOtel();
  expect(typeof loaded.api.trace.getTracer).toBe("function");
});
