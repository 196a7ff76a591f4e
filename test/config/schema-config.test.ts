/**
 * `ubiquity schema --config <file>`: the JSON Schema of that config's plugins, so a third-party
 * plugin's options (its `options` slice) are in it as the built-ins' are; without --config, the
 * config the search finds (in a trusted folder), else the committed schema of the default preset.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, repoRoot, requireDist, runCli, tempProject } from "../helpers/project";

beforeAll(requireDist);
afterAll(removeTempProjects);

describe("ubiquity schema --config", () => {
  it("includes the options a third-party plugin in the config declares", async () => {
    const zod = JSON.stringify(`${repoRoot}/node_modules/zod/index.js`);
    const cwd = tempProject({
      "greeter.mjs": `import { z } from ${zod};\nexport default { name: "ubiquity-plugin-greeter", options: z.strictObject({ greeting: z.string().optional().describe("What the greeter says") }), apply() {} };\n`,
      "ubiquity.config.mjs": `import greeter from "./greeter.mjs";\nexport default { plugins: [greeter] };\n`,
    });
    const { code, stdout, stderr } = await runCli(["schema", "--config", "ubiquity.config.mjs"], cwd);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const schema = JSON.parse(stdout) as { properties: Record<string, { type?: string; description?: string }> };
    expect(schema.properties.greeting).toMatchObject({ type: "string", description: "What the greeter says" });
    // The built-ins of the default preset are still there.
    expect(schema.properties.permissionMode).toBeDefined();

    // Found by the search: the same schema once the folder is trusted (runCli trusts), the default preset's when not.
    const found = JSON.parse((await runCli(["schema"], cwd)).stdout) as { properties: Record<string, unknown> };
    expect(found.properties.greeting).toBeDefined();
    const plain = JSON.parse((await runCli(["schema"], cwd, { UBIQUITY_TRUST: "", HOME: tempProject({}) })).stdout) as {
      properties: Record<string, unknown>;
    };
    expect(plain.properties.greeting).toBeUndefined();
  });
});
