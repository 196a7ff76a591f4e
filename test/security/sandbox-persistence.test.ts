import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { sandboxAvailability } from "../../plugins/sandbox/availability";
import { runCli } from "../helpers/project";
import { attackBench, installUbiquityInto, runInstalled, trustNow } from "./attack-bench";
import { attacker, toolResults } from "./scripted-attacker";

const KEY = "sk-test-persist";
const { attack, project, temp, serve } = attackBench({
  name: "persist",
  model: "openai:gpt-4.1",
  key: KEY,
  fill: ({ cwd }) => writeFileSync(join(cwd, "a.txt"), "a\n"),
});
const linux = sandboxAvailability().ok;
const repo = join(__dirname, "..", "..");

/** Shell text that appends `code` to `file` (single quotes kept out of the way). */
const append = (file: string, code: string) => `printf '%s\\n' '${code.replaceAll("'", "'\\''")}' >> ${file}`;

describe.skipIf(!linux)(
  "P1: ubiquity's dependencies installed in the project are not writable by the commands it sandboxes",
  () => {
    /**
     * The built package copied into the project's node_modules, `tapable` (which the runner loads at
     * every start) copied for real, every other dependency linked from this checkout's; its bin.
     */
    const installInto = (cwd: string) => installUbiquityInto(cwd, ["tapable"]);

    it("a sandboxed command cannot change a dependency's file, swap a linked one, or put one first; the next start runs none of it", async () => {
      const p = project();
      const bin = installInto(p.cwd);
      const marker = join(p.home, "pwned");
      const payload = `require("fs").writeFileSync(${JSON.stringify(marker)}, "x");`;
      const shadow = `${payload} module.exports = require(${JSON.stringify(join(repo, "node_modules", "zod"))});`;
      const tapable = join(p.cwd, "node_modules", "tapable", "lib", "index.js");
      const before = readFileSync(tapable, "utf8");
      // Each target is named only at run time (\${n}modules): the permission engine sees a write
      // into ubiquity's own dependencies and asks, so the sandbox is what must hold here.
      const plant = [
        "n=node_",
        // The file the next start loads, changed in place.
        append("${n}modules/tapable/lib/index.js", payload),
        // A linked dependency swapped for a folder of the attacker's.
        `m=package; m=$m.json; rm -f \${n}modules/zod; mkdir -p \${n}modules/zod && printf '%s' '{"name":"zod","main":"index.js"}' > \${n}modules/zod/$m && printf '%s\\n' '${shadow}' > \${n}modules/zod/index.js`,
        // One put first in the search (inside ubiquity's own folder).
        `s=${join(repo, "node_modules", "tapable")}; mkdir -p \${n}modules/ubiquity/node_modules && cp -r "$s" \${n}modules/ubiquity/node_modules/ && ${append("${n}modules/ubiquity/node_modules/tapable/lib/index.js", payload)}`,
        "echo tried",
      ].join("; ");
      const env = { HOME: p.home, OPENAI_API_KEY: KEY };
      const first = await runInstalled(bin, p.cwd, {
        ...env,
        OPENAI_BASE_URL: (await serve(attacker([plant]))).baseURL,
      });
      expect(first.code, first.stderr).toBe(0);
      const out = toolResults(first.stdout)[0]!.content;
      expect(out).toContain("tried");
      const second = await runInstalled(bin, p.cwd, { ...env, OPENAI_BASE_URL: (await serve(attacker([]))).baseURL });
      expect(second.code, second.stderr).toBe(0);
      expect(existsSync(marker)).toBe(false);
      expect(readFileSync(tapable, "utf8")).toBe(before);
      expect(realpathSync(join(p.cwd, "node_modules", "zod"))).toBe(realpathSync(join(repo, "node_modules", "zod")));
      expect(existsSync(join(p.cwd, "node_modules", "ubiquity", "node_modules"))).toBe(false);
      expect(out).toContain("Read-only file system");
    });

    it("a project without ubiquity installed keeps its node_modules writable (the test can fail)", async () => {
      const p = project();
      mkdirSync(join(p.cwd, "node_modules", "dep"), { recursive: true });
      const { out } = await attack(
        ["echo x >> node_modules/dep/index.js && echo wrote"],
        ["--permission-mode", "bypassPermissions"],
        p,
      );
      expect(out[0]!.content).toContain("wrote");
      expect(readFileSync(join(p.cwd, "node_modules", "dep", "index.js"), "utf8")).toBe("x\n");
    });
  },
);

describe.skipIf(!linux)(
  "P4: ubiquity's own cache, compile cache and trust store stay read-only whatever folders are writable",
  () => {
    /** A project with a trusted TypeScript config, and a home inside a folder of its own (`above`). */
    const withConfig = () => {
      const above = temp("ubq-persist-above-");
      const p = { cwd: temp("ubq-persist-ws-"), home: join(above, "home") };
      mkdirSync(p.home);
      writeFileSync(join(p.cwd, "ubiquity.config.ts"), "const n: number = 1;\nexport default { maxTurns: 5 + n };\n");
      return { ...p, above };
    };
    /** Every file of jiti's cache gets the payload in front; the compile cache and the trust store get a file each. */
    const plant = (home: string, marker: string) => {
      const payload = `require("fs").writeFileSync(${JSON.stringify(marker)}, "x");`;
      return [
        `for f in $(find ${home}/.cache/ubiquity/jiti -type f 2>/dev/null); do { printf '%s\\n' '${payload}'; cat "$f"; } > /tmp/x && cat /tmp/x > "$f" && echo "planted $f"; done`,
        // Paths made at run time: the engine leaves them to the sandbox.
        `u=.ubiquity; t=${home}/$u/trusted-folders; printf '{}' > $t.json`,
        `touch ${home}/$u/compile-cache/planted`,
        "echo done",
      ].join("; ");
    };

    const places = { home: "the home folder", above: "a folder above the home folder", cache: "~/.cache" } as const;
    for (const writable of ["home", "above", "cache"] as const) {
      it(`with ${places[writable]} writable (--add-dir), a sandboxed command changes none of them and the next start runs nothing`, async () => {
        const p = withConfig();
        mkdirSync(join(p.home, ".cache"));
        const dir = writable === "home" ? p.home : writable === "above" ? p.above : join(p.home, ".cache");
        const marker = join(temp("ubq-persist-mark-"), "pwned");
        // Trusted first, so the trust store exists.
        await trustNow(p);
        const store = readFileSync(join(p.home, ".ubiquity", "trusted-folders.json"), "utf8");
        const first = await attack(
          [plant(p.home, marker)],
          ["--permission-mode", "bypassPermissions", "--add-dir", dir],
          p,
        );
        expect(first.out[0]!.content).toContain("done");
        expect(readdirSync(join(p.home, ".cache", "ubiquity", "jiti")).length).toBeGreaterThan(0);
        const second = await runCli(
          ["run", "--model", "openai:gpt-4.1", "--output-format", "stream-json", "go"],
          p.cwd,
          {
            HOME: p.home,
            OPENAI_API_KEY: KEY,
            OPENAI_BASE_URL: (await serve(attacker([]))).baseURL,
            UBIQUITY_TRUST: "",
          },
        );
        expect(second.code, second.stderr).toBe(0);
        expect(existsSync(marker)).toBe(false);
        expect(readFileSync(join(p.home, ".ubiquity", "trusted-folders.json"), "utf8")).toBe(store);
        expect(existsSync(join(p.home, ".ubiquity", "compile-cache", "planted"))).toBe(false);
        expect(first.out[0]!.content).not.toContain("planted /");
      });
    }
  },
);

describe.skipIf(!linux)(
  "P2: an excluded command does not run outside the sandbox on what sandboxed commands changed",
  () => {
    /** A project whose config runs `npm` outside the sandbox, with a harmless test script. */
    const npmProject = () => {
      const p = project();
      writeFileSync(join(p.cwd, ".ubiquityrc.json"), JSON.stringify({ sandbox: { excludedCommands: ["npm"] } }));
      writeFileSync(join(p.cwd, "package.json"), JSON.stringify({ name: "p", scripts: { test: "echo tested" } }));
      return p;
    };
    /** Shell text a sandboxed command runs: package.json's test script now leaves `marker` (a path no sandboxed process can write). */
    const rewrite = (marker: string) =>
      `m=package; m=$m.json; printf '%s' '${JSON.stringify({ name: "p", scripts: { test: `touch ${marker}` } })}' > $m; echo rewrote`;

    it("through the bin: a sandboxed command rewrites package.json's scripts; the excluded `npm test` asks, naming it, and nothing answers: it does not run", async () => {
      const p = npmProject();
      const marker = join(temp("ubq-persist-mark-"), "pwned");
      const { out } = await attack(
        [rewrite(marker), "npm test"],
        ["--trust", "--permission-mode", "bypassPermissions"],
        p,
      );
      expect(out[0]!.content).toMatch(/^rewrote$/m);
      expect(existsSync(marker)).toBe(false);
      expect(out[1]!.isError).toBe(true);
      expect(out[1]!.content).toContain("runs outside the sandbox");
      expect(out[1]!.content).toContain("package.json");
    });

    it("through the bin, dontAsk: a sandboxed hook rewrote the scripts; an allow rule naming `npm test` does not outweigh that: denied, saying why", async () => {
      const p = npmProject();
      const marker = join(temp("ubq-persist-mark-"), "pwned");
      // The user's own SessionStart hook runs sandboxed, unjudged by the engine.
      mkdirSync(join(p.home, ".ubiquity"), { recursive: true });
      const hook = `printf '%s' '${JSON.stringify({ name: "p", scripts: { test: `touch ${marker}` } })}' > package.json`;
      writeFileSync(
        join(p.home, ".ubiquity", "settings.json"),
        JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: hook }] }] } }),
      );
      const { out } = await attack(
        ["npm test"],
        ["--trust", "--setting-sources", "user", "--permission-mode", "dontAsk", "--allowedTools", "Bash(npm test)"],
        p,
      );
      expect(readFileSync(join(p.cwd, "package.json"), "utf8")).toContain(marker);
      expect(existsSync(marker)).toBe(false);
      expect(out[0]!.isError, out[0]!.content).toBe(true);
      expect(out[0]!.content).toContain("dontAsk never prompts");
      expect(out[0]!.content).toContain("package.json");
    });

    it("through the bin: after a sandboxed command that changed nothing, the excluded `npm test` still runs outside (the test can fail)", async () => {
      const p = npmProject();
      const marker = join(temp("ubq-persist-mark-"), "ran");
      writeFileSync(join(p.cwd, "package.json"), JSON.stringify({ name: "p", scripts: { test: `touch ${marker}` } }));
      const { out } = await attack(["ls", "npm test"], ["--trust", "--permission-mode", "bypassPermissions"], p);
      expect(out[1]!.isError, out[1]!.content).toBe(false);
      expect(existsSync(marker)).toBe(true);
    });

    it("in the SDK: what the file tools wrote (Write, Edit) is no change of the sandbox's: the excluded command runs outside without asking", async () => {
      const p = npmProject();
      const marker = join(temp("ubq-persist-mark-"), "ran-outside");
      const model = scriptedModel([
        { toolCalls: [{ toolName: "Bash", input: { command: "ls" } }] },
        { toolCalls: [{ toolName: "Write", input: { file_path: join(p.cwd, "b.txt"), content: "b\n" } }] },
        { toolCalls: [{ toolName: "Read", input: { file_path: join(p.cwd, "package.json") } }] },
        {
          toolCalls: [
            {
              toolName: "Edit",
              input: {
                file_path: join(p.cwd, "package.json"),
                old_string: "echo tested",
                new_string: `touch ${marker}`,
              },
            },
          ],
        },
        { toolCalls: [{ toolName: "Bash", input: { command: "npm test" } }] },
        "done",
      ]);
      const asked: string[] = [];
      const canUseTool = async (tool: string, input: Record<string, unknown>) => {
        asked.push(`${tool} ${String(input.command ?? input.file_path)}`);
        return { behavior: "allow" as const };
      };
      const results: string[] = [];
      for await (const m of summon("go", {
        model,
        cwd: p.cwd,
        canUseTool,
        permissionMode: "bypassPermissions",
        persistSession: false,
        sandbox: { excludedCommands: ["npm"] },
      }))
        if (m.type === "tool_result") results.push(String(m.output.content));
      expect(existsSync(marker), results.join("\n")).toBe(true);
      expect(
        asked.filter((a) => a.startsWith("Bash")),
        results.join("\n"),
      ).toEqual([]);
    });

    it("in the SDK: the approval covers what it listed; a change made after it runs the command inside the sandbox, and says so", async () => {
      for (const late of [false, true]) {
        const p = npmProject();
        const marker = join(temp("ubq-persist-mark-"), "ran-outside");
        const model = scriptedModel([
          { toolCalls: [{ toolName: "Bash", input: { command: rewrite(marker) } }] },
          { toolCalls: [{ toolName: "Bash", input: { command: "npm test" } }] },
          "done",
        ]);
        let asked = 0;
        const canUseTool = async (_tool: string, input: Record<string, unknown>) => {
          if (input.command === "npm test") {
            asked += 1;
            // Something changes the scripts again while the user is asked (a background shell would).
            if (late) writeFileSync(join(p.cwd, "package.json"), readFileSync(join(p.cwd, "package.json")));
          }
          return { behavior: "allow" as const };
        };
        const results: string[] = [];
        for await (const m of summon("go", {
          model,
          cwd: p.cwd,
          canUseTool,
          persistSession: false,
          sandbox: { excludedCommands: ["npm"] },
        }))
          if (m.type === "tool_result") results.push(String(m.output.content));
        expect(results[0], results.join("\n")).toMatch(/^rewrote$/m);
        expect(asked, results.join("\n")).toBe(1);
        expect(existsSync(marker), `late: ${late}\n${results.join("\n")}`).toBe(!late);
        if (late) expect(results[1]).toContain("runs inside the sandbox this time");
      }
    });
  },
);

describe.skipIf(!linux)("P3: a package.json `imports` map the trusted config uses is pinned with it", () => {
  /**
   * A trusted project whose config imports `#h` through `imports`; a sandboxed command in
   * bypassPermissions tries `plant`, which the engine or the sandbox refuses (package.json and the
   * config's modules are pinned: sensitive, read-only in the sandbox); then `change` makes the same
   * change from outside the run (a pull, an editor), which the pins hold against. Returns the next
   * start's stderr.
   */
  const trustedThenAttacked = async (
    imports: unknown,
    files: Record<string, string>,
    plant: string,
    change: (cwd: string) => void,
  ) => {
    const p = project();
    writeFileSync(join(p.cwd, "package.json"), JSON.stringify({ name: "p", type: "module", imports }));
    mkdirSync(join(p.cwd, "lib"));
    for (const [path, text] of Object.entries(files)) writeFileSync(join(p.cwd, path), text);
    writeFileSync(join(p.cwd, "ubiquity.config.ts"), 'import h from "#h";\nexport default { maxTurns: 5 + h };\n');
    await trustNow(p);
    const pinned = ["package.json", ...Object.keys(files)];
    const before = pinned.map((f) => readFileSync(join(p.cwd, f), "utf8"));
    const { out, run } = await attack([plant], ["--permission-mode", "bypassPermissions"], p);
    expect(out, run.stderr).toHaveLength(1);
    expect(
      pinned.map((f) => readFileSync(join(p.cwd, f), "utf8")),
      out[0]!.content,
    ).toEqual(before);
    change(p.cwd);
    const next = await runCli(["run", "--model", "openai:gpt-4.1", "--output-format", "stream-json", "go"], p.cwd, {
      HOME: p.home,
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: (await serve(attacker([]))).baseURL,
      UBIQUITY_TRUST: "",
    });
    expect(next.code, next.stderr).toBe(0);
    return { ...p, stderr: next.stderr };
  };
  const evil = (marker: string) =>
    `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(marker)}, "x"); export default 1;`;

  it("a sandboxed command that points `#h` at a package it made does not run it at the next start", async () => {
    const marker = join(temp("ubq-persist-mark-"), "pwned");
    const plant = [
      `mkdir -p node_modules/evil && printf '%s\\n' '${evil(marker)}' > node_modules/evil/index.mjs`,
      `m=package; printf '%s' '{"name":"evil","type":"module","main":"index.mjs"}' > node_modules/evil/$m.json`,
      `printf '%s' '{"name":"p","type":"module","imports":{"#h":"evil"}}' > $m.json`,
      "echo done",
    ].join("; ");
    const p = await trustedThenAttacked(
      { "#h": "./lib/h.mjs" },
      { "lib/h.mjs": "export default 1;\n" },
      plant,
      (cwd) => {
        mkdirSync(join(cwd, "node_modules", "evil"), { recursive: true });
        writeFileSync(join(cwd, "node_modules", "evil", "index.mjs"), `${evil(marker)}\n`);
        writeFileSync(
          join(cwd, "node_modules", "evil", "package.json"),
          '{"name":"evil","type":"module","main":"index.mjs"}',
        );
        writeFileSync(join(cwd, "package.json"), '{"name":"p","type":"module","imports":{"#h":"evil"}}');
      },
    );
    expect(existsSync(marker)).toBe(false);
    expect(p.stderr).toContain("package.json (changed)");
  });

  it("a conditional map: the file jiti loads (`import`), not only the one Node's require picks, is pinned", async () => {
    const marker = join(temp("ubq-persist-mark-"), "pwned");
    const plant = `printf '%s\\n' '${evil(marker)}' > lib/imp.mjs; echo done`;
    const p = await trustedThenAttacked(
      { "#h": { import: "./lib/imp.mjs", default: "./lib/def.mjs" } },
      { "lib/imp.mjs": "export default 1;\n", "lib/def.mjs": "export default 1;\n" },
      plant,
      (cwd) => writeFileSync(join(cwd, "lib", "imp.mjs"), `${evil(marker)}\n`),
    );
    expect(existsSync(marker)).toBe(false);
    expect(p.stderr).toContain("lib/imp.mjs (changed)");
  });
});
