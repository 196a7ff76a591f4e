/**
 * Importing `ubiquity` loads no provider package (all of them cost ~400 ms and ~110 MB); a
 * provider's package loads when a model string first names it. Checked in a child process that
 * records every package Node resolves.
 */
import { expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

it("importing the package entry loads no provider package; resolving a model string loads just its own", () => {
  const root = pathToFileURL(fileURLToPath(new URL("../../", import.meta.url))).href;
  const probe = fileURLToPath(new URL("./fixtures/lazy-probe.mjs", import.meta.url));
  const out = execFileSync(process.execPath, [probe, root], { encoding: "utf8", timeout: 240_000 });
  const { afterImport, afterResolve } = JSON.parse(out) as { afterImport: string[]; afterResolve: string[] };
  // Only what `ai` itself imports: the provider interfaces, their utilities, and the gateway.
  expect(afterImport).toEqual(["@ai-sdk/gateway", "@ai-sdk/provider", "@ai-sdk/provider-utils"]);
  expect(afterResolve).toEqual(["@ai-sdk/gateway", "@ai-sdk/groq", "@ai-sdk/provider", "@ai-sdk/provider-utils"]);
});
