/**
 * The permission engine asks which config file loads a written path (config-modules.ts). The
 * config search behind it is kept between decisions while the folders it depends on are unchanged
 * (it was ~0.5 ms of every decision on a written path): a config that appears, a package.json that
 * gains its "ubiquity" key, a config behind a link whose target appears later, and one in
 * `.config/` must each be seen at the next decision all the same. Each case first lets the
 * folders' times settle (file times come from a coarse clock, so recent ones are never kept), so
 * the kept search is what answers, then changes the project.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { configCodeOf } from "../../plugins/permissions/config-modules";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A project (a git checkout) with lib/policy.mjs, which no config loads yet. */
function project(): { root: string; module: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "ubq-cfgcache-")));
  made.push(root);
  mkdirSync(join(root, ".git"));
  mkdirSync(join(root, "lib"));
  writeFileSync(join(root, "lib", "policy.mjs"), "export const policy = 1;\n");
  return { root, module: join(root, "lib", "policy.mjs") };
}

const CONFIG = 'import { policy } from "./lib/policy.mjs";\nexport default { maxTurns: policy };\n';

/** Past the engine's racy window: the search found now is kept. */
const settle = () => sleep(2_100);

describe("the config search the engine keeps between decisions", () => {
  it.each([
    ["a config file made in the project", (root: string) => writeFileSync(join(root, "ubiquity.config.mjs"), CONFIG)],
    [
      "a config file made in .config/",
      (root: string) => {
        mkdirSync(join(root, ".config"));
        writeFileSync(join(root, ".config", "ubiquityrc.mjs"), CONFIG.replace("./lib", "../lib"));
      },
    ],
  ])("%s is seen at the next decision", async (_what, change) => {
    const { root, module } = project();
    await settle();
    expect(configCodeOf([module], [root])).toBeUndefined();
    expect(configCodeOf([module], [root])).toBeUndefined();
    change(root);
    expect(configCodeOf([module], [root])).toMatchObject({ module: true });
  });

  it("a package.json that gains its ubiquity key (its plugins load the module) is seen", async () => {
    const { root, module } = project();
    writeFileSync(join(root, "package.json"), JSON.stringify({ name: "p", type: "module" }));
    await settle();
    expect(configCodeOf([module], [root])).toBeUndefined();
    // Rewritten in place (the folder's entries stay as they were): its plugins name the module.
    writeFileSync(
      join(root, "package.json"),
      JSON.stringify({ name: "p", type: "module", ubiquity: { plugins: ["./lib/policy.mjs"] } }),
    );
    expect(configCodeOf([module], [root])).toMatchObject({ module: true });
  });

  it("a config behind a link naming nothing yet is seen once its target appears (no folder of the search changes)", async () => {
    const { root, module } = project();
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), "ubq-cfgcache-target-")));
    made.push(elsewhere);
    symlinkSync(join(elsewhere, "config.mjs"), join(root, "ubiquity.config.mjs"));
    await settle();
    expect(configCodeOf([module], [root])).toBeUndefined();
    writeFileSync(join(elsewhere, "config.mjs"), CONFIG.replace("./lib", `${root}/lib`));
    expect(configCodeOf([module], [root])).toMatchObject({ module: true });
  });
});
