/**
 * The permission engine asks which config file loads a written path (config-modules.ts). The
 * config search behind it is kept between decisions while the folders it depends on are unchanged
 * (it was ~0.5 ms of every decision on a written path): a config that appears, a package.json that
 * gains its "ubiquity" key, a config behind a link whose target appears later, and one in
 * `.config/` must each be seen at the next decision all the same. Each case first waits until the
 * folders the engine's racy test reads have been unchanged for its window (file times come from a
 * coarse clock, so recent ones are never kept), so the kept search is what answers, then changes the
 * project. The projects are made together, before the first case, under a folder of their own in
 * /var/tmp: /tmp is every test's, and a change in it (an ancestor of the project) within the
 * window kept no search, so a case could pass without the kept search ever answering.
 */
import {
  accessSync,
  constants,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { configCodeOf } from "../../plugins/permissions/config-modules";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A folder for the projects whose ancestors few processes change: /var/tmp where it is writable. */
const base = (() => {
  let parent = tmpdir();
  try {
    accessSync("/var/tmp", constants.W_OK);
    parent = "/var/tmp";
  } catch {
    // tmpdir(): a busy folder's changes only make a case wait longer
  }
  const dir = realpathSync(mkdtempSync(join(parent, "ubq-cfgcache-")));
  made.push(dir);
  return dir;
})();

/** A project (a git checkout) with lib/policy.mjs, which no config loads yet. */
function project(): { root: string; module: string } {
  const root = mkdtempSync(join(base, "p-"));
  mkdirSync(join(root, ".git"));
  mkdirSync(join(root, "lib"));
  writeFileSync(join(root, "lib", "policy.mjs"), "export const policy = 1;\n");
  return { root, module: join(root, "lib", "policy.mjs") };
}

const CONFIG = 'import { policy } from "./lib/policy.mjs";\nexport default { maxTurns: policy };\n';

/** The engine's racy window (RACY_MS in config-modules.ts), and a tick of the file clock more. */
const RACY_MS = 2_100;

/** What the engine's racy test reads for a project: its folder and each one up to /, its .config and package.json. */
function watched(root: string): string[] {
  const paths = [join(root, ".config"), join(root, "package.json")];
  for (let dir = root; ; dir = dirname(dir)) {
    paths.push(dir);
    if (dirname(dir) === dir) return paths;
  }
}

/**
 * Wait until nothing the engine's racy test reads for `root` changed within its window: the search
 * found next is kept. Waits for that, not a fixed time (60 s at most: then the case cannot be tested).
 */
async function settle(root: string): Promise<void> {
  for (const end = Date.now() + 60_000; ; ) {
    const newest = Math.max(...watched(root).map((p) => statSync(p, { throwIfNoEntry: false })?.ctimeMs ?? 0));
    const quiet = Date.now() - newest;
    if (quiet > RACY_MS) return;
    if (Date.now() > end) throw new Error(`${root}'s folders kept changing (the last ${quiet} ms ago)`);
    await sleep(RACY_MS - quiet);
  }
}

// Each case's project as it is before its change, all made before the first case: one wait in all.
const inProject = project();
const inDotConfig = project();
const gainsKey = project();
writeFileSync(join(gainsKey.root, "package.json"), JSON.stringify({ name: "p", type: "module" }));
const behindLink = project();
const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), "ubq-cfgcache-target-")));
made.push(elsewhere);
symlinkSync(join(elsewhere, "config.mjs"), join(behindLink.root, "ubiquity.config.mjs"));

describe("the config search the engine keeps between decisions", () => {
  it.each([
    [
      "a config file made in the project",
      inProject,
      (root: string) => writeFileSync(join(root, "ubiquity.config.mjs"), CONFIG),
    ],
    [
      "a config file made in .config/",
      inDotConfig,
      (root: string) => {
        mkdirSync(join(root, ".config"));
        writeFileSync(join(root, ".config", "ubiquityrc.mjs"), CONFIG.replace("./lib", "../lib"));
      },
    ],
  ])("%s is seen at the next decision", async (_what, { root, module }, change) => {
    await settle(root);
    expect(configCodeOf([module], [root])).toBeUndefined();
    expect(configCodeOf([module], [root])).toBeUndefined();
    change(root);
    expect(configCodeOf([module], [root])).toMatchObject({ module: true });
  });

  it("a package.json that gains its ubiquity key (its plugins load the module) is seen", async () => {
    const { root, module } = gainsKey;
    await settle(root);
    expect(configCodeOf([module], [root])).toBeUndefined();
    // Rewritten in place (the folder's entries stay as they were): its plugins name the module.
    writeFileSync(
      join(root, "package.json"),
      JSON.stringify({ name: "p", type: "module", ubiquity: { plugins: ["./lib/policy.mjs"] } }),
    );
    expect(configCodeOf([module], [root])).toMatchObject({ module: true });
  });

  it("a config behind a link naming nothing yet is seen once its target appears (no folder of the search changes)", async () => {
    const { root, module } = behindLink;
    await settle(root);
    expect(configCodeOf([module], [root])).toBeUndefined();
    writeFileSync(join(elsewhere, "config.mjs"), CONFIG.replace("./lib", `${root}/lib`));
    expect(configCodeOf([module], [root])).toMatchObject({ module: true });
  });
});
