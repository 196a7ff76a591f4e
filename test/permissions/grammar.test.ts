/**
 * Allow is a proof (issue 35): every named node type of tree-sitter-bash is classified, read from
 * the grammar's own node-types.json at test time, so a type the table lacks (a new grammar) fails
 * here instead of passing unnoticed; and every opaque construct leaves a command unprovable.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { beforeAll, describe, expect, it } from "vitest";
import { NODE_CLASSES } from "../../plugins/permissions/shell/grammar";
import { analyzeShell, loadShellParser } from "../../plugins/permissions/shell/load";

const require = createRequire(import.meta.url);
const nodeTypes = JSON.parse(readFileSync(require.resolve("tree-sitter-bash/src/node-types.json"), "utf8")) as {
  type: string;
  named: boolean;
}[];
const named = nodeTypes.filter((t) => t.named).map((t) => t.type);

beforeAll(() => loadShellParser());

describe("the grammar table", () => {
  it("classifies every named node type of node-types.json, and nothing else", () => {
    expect(named.length).toBeGreaterThan(50);
    expect(named.filter((t) => !(t in NODE_CLASSES))).toEqual([]);
    expect(Object.keys(NODE_CLASSES).filter((t) => !named.includes(t))).toEqual([]);
    for (const [type, cls] of Object.entries(NODE_CLASSES)) {
      // Each entry says the rule it is read by, or why it is opaque.
      expect("rule" in cls ? cls.rule : cls.why, type).toMatch(/\S{3}/);
    }
  });

  it.each([
    ["echo $((i+1))", "arithmetic"],
    ["x=1; echo $[x]", "arithmetic"],
    ["((n++))", "arithmetic"],
    ["for ((i=0;i<3;i++)); do echo; done", "arithmetic"],
    ["a['$(touch x)']=1; echo ok", "subscript"],
    ["echo ${a[$i]}", "subscript"],
    ["x=(['$(id)']=1)", "[index]="],
    ["echo ${x:1:2}", "expansion"],
    ["echo ${!name}", "expansion"],
    ['echo "${!prefix*}"', "expansion"],
    ["echo ${x@P}", "expansion"],
    ["echo ${PATH:=/tmp}", "expansion"],
    ["f() { echo; }; f", "function definition"],
    ["[[ $a -eq 1 ]]", "arithmetic comparison"],
    ['echo $"hello"', "locale"],
    ["exec 3>out.txt", "exec with only redirections"],
    ["compgen -W '$(touch x)' a", "compgen"],
    ["complete -C 'touch x' git", "complete"],
    ["fc -s", "fc"],
  ])("%j is not understood (%s)", (command, reason) => {
    expect(analyzeShell(command).unsafe.join("; ")).toContain(reason);
  });

  it.each([
    "echo $((1+2))",
    "echo ${x:-default} ${#x} ${x%.*} ${x/a/b} ${x^^}",
    "echo ${a[1]} ${a[@]}",
    "for f in a b; do echo $f; done",
    "case $x in a|b) echo;; esac",
    "[[ -f x && $y == z* ]]",
  ])("%j is understood", (command) => {
    expect(analyzeShell(command).unsafe).toEqual([]);
  });
});

describe("the differential generator reaches the whole grammar and every spec'd option", () => {
  it("every named node type appears in generated strings, and every option of every spec is generated", async () => {
    const { generateMany, SPEC_OPTIONS } = await import("./differential/generator");
    const { parseShell } = await import("../../plugins/permissions/shell/parser");
    const strings = generateMany(60_000, 35);
    const seen = new Set<string>();
    for (const s of strings.slice(0, 8000)) {
      const tree = parseShell(s);
      const cursor = tree.walk();
      for (;;) {
        if (cursor.nodeIsNamed) seen.add(cursor.nodeType);
        if (cursor.gotoFirstChild()) continue;
        while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) break;
        if (cursor.nodeId === tree.rootNode.id) break;
      }
      cursor.delete();
      tree.delete();
    }
    const concrete = named.filter((t) => !t.startsWith("_"));
    expect(concrete.filter((t) => !seen.has(t))).toEqual([]);
    const text = strings.join("\n");
    const missing = SPEC_OPTIONS.filter(({ line, option }) => !text.includes(option ? `${line} ${option}` : line)).map(
      ({ line, option }) => `${line} ${option}`,
    );
    expect(missing).toEqual([]);
  }, 120_000);
});

describe("assignments: exported variables must be known to be harmless", () => {
  it.each([
    ["NODE_OPTIONS=--require=./x.js npm test", "NODE_OPTIONS"],
    ["RUSTFLAGS='-C linker=./x' cargo build", "RUSTFLAGS"],
    ["TAR_OPTIONS=--to-command=sh tar -xf a.tar", "TAR_OPTIONS"],
    ["export GOFLAGS=-toolexec=./x; go test", "GOFLAGS"],
    ["declare -x LUA_INIT=@x.lua; lua a.lua", "LUA_INIT"],
    ["env DJANGO_SETTINGS_MODULE=evil python manage.py test", "DJANGO_SETTINGS_MODULE"],
    ["PATH=./bin:$PATH; ls", "PATH"],
    ["IFS=/; ls", "IFS"],
    ["set -a; X=1 ls", "-a"],
    ["set -o allexport; ls", "allexport"],
  ])("%j is not covered (%s)", (command, name) => {
    const a = analyzeShell(command);
    expect([...a.unsafe, ...a.candidates.map((c) => c.unproven?.why ?? "")].join("; ")).toContain(name);
  });

  it.each([
    "CI=1 npm test",
    "NODE_ENV=production node build.js",
    "LC_ALL=C sort a.txt",
    "env FORCE_COLOR=0 ls",
    "x=1; echo $x",
    "version=1.2; echo $version",
    "set -euo pipefail",
  ])("%j is understood", (command) => {
    expect(analyzeShell(command).unsafe).toEqual([]);
  });
});

describe("what the 100,000-string fuzz found (seed 35035)", () => {
  it.each(["declare\n\\ls", "local\n\\id", "export\n\\rm -rf x", "unset\n\\rm x"])(
    "%j: the command on the next line is not missed",
    async (command) => {
      const { decidePermission } = await import("ubiquity/plugins/permissions");
      const a = analyzeShell(command);
      expect(a.hidden.join("; ")).toContain("next line");
      const next = command.split("\n")[1]!.replace(/^\\/, "").split(" ")[0]!;
      expect(
        (await decidePermission({ toolName: "Bash", input: { command }, rules: { allow: ["Bash(*)"] } })).behavior,
      ).toBe("ask");
      expect(
        (
          await decidePermission({
            toolName: "Bash",
            input: { command },
            rules: { deny: [`Bash(${next}:*)`] },
            mode: "bypassPermissions",
          })
        ).behavior,
      ).toBe("deny");
    },
  );
});
