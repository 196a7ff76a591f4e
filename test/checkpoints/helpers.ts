/** A real workspace, a real git repository of the user's, and a scripted run that writes with Edit, Write and Bash. */
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, lstatSync, readlinkSync, realpathSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { tempDirs } from "../helpers/temp-dirs";
import { summon, type Message } from "ubiquity";
import { scriptedModel, type ScriptedTurn } from "ubiquity/testing";
import { collect } from "../helpers/collect";

const made = tempDirs();

/** A fresh real folder (removed after the test). */
export function temp(prefix = "ubq-ckpt-"): string {
  return realpathSync(made(prefix));
}

/** Every file under `root` (symlinks as `-> target`), relative path → sha256 of its bytes; `.git` included only when asked. */
export function hashTree(
  root: string,
  { withGit = false, only }: { withGit?: boolean; only?: string } = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      const rel = relative(root, full);
      if (!withGit && name === ".git") continue;
      if (only && !rel.startsWith(only)) continue;
      const info = lstatSync(full);
      if (info.isSymbolicLink()) out[rel] = `-> ${readlinkSync(full)}`;
      else if (info.isDirectory()) walk(full);
      else
        out[rel] =
          `${createHash("sha256").update(readFileSync(full)).digest("hex")} ${(info.mode & 0o777).toString(8)}`;
    }
  };
  walk(root);
  return out;
}

/** The workspace of the acceptance test: tracked files, an ignored one, an oversized one, and the user's own git repository. */
export function workspace(): { dir: string; home: string } {
  const home = temp("ubq-ckpt-home-");
  const dir = temp();
  const files: Record<string, string> = {
    "a.txt": "alpha\nbeta\ngamma\n",
    "b.txt": "to be removed by rm\n",
    "c.txt": "x marks the spot\nxylophone\n",
    "d.txt": "overwritten by echo\n",
    "src/keep.ts": "export const keep = 1;\n",
    ".gitignore": "*.log\n",
    "build.log": "ignored: never snapshotted\n",
    "big.txt": "0123456789abcdef\n".repeat(200), // 3,400 bytes: over a 0.002 MB (2,097 byte) limit
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  writeFileSync(join(dir, "bin.dat"), Buffer.from([0, 1, 2, 255, 0, 10]));
  const g = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: dir,
      env: {
        ...process.env,
        GIT_CONFIG_GLOBAL: "/dev/null",
        GIT_AUTHOR_NAME: "u",
        GIT_AUTHOR_EMAIL: "u@x",
        GIT_COMMITTER_NAME: "u",
        GIT_COMMITTER_EMAIL: "u@x",
      },
    });
  g("init", "-q");
  g("add", "a.txt", "c.txt");
  g("commit", "-qm", "user's own commit");
  return { dir, home };
}

/** The run: Read, then Edit + Write (one turn), then Bash (rm, sed -i, echo >, a new folder), then done. */
export const SCRIPT: ScriptedTurn[] = [
  { toolCalls: [{ toolName: "Read", input: { file_path: "a.txt" } }] },
  {
    toolCalls: [
      { toolName: "Edit", input: { file_path: "a.txt", old_string: "beta", new_string: "BETA (edited)" } },
      { toolName: "Write", input: { file_path: "created.txt", content: "made by Write\n" } },
    ],
  },
  {
    toolCalls: [
      {
        toolName: "Bash",
        input: {
          command:
            "rm b.txt && sed -i 's/x/y/g' c.txt && echo 'by bash' > d.txt && echo new > e.txt && mkdir -p gen/deep && echo z > gen/deep/f.txt && echo more >> build.log && echo grow >> big.txt && chmod +x src/keep.ts",
        },
      },
    ],
  },
  "done",
];

/** Run `script` in `dir` with checkpoints on; sessions and checkpoints go under `home`. */
export async function scriptedRun(
  dir: string,
  home: string,
  script: ScriptedTurn[] = SCRIPT,
  extra: Record<string, unknown> = {},
): Promise<Message[]> {
  return collect(
    summon("change some files", {
      model: scriptedModel(script),
      cwd: dir,
      permissionMode: "bypassPermissions",
      sessionDir: join(home, "sessions"),
      todoDir: join(home, "todos"),
      checkpoints: { dir: join(home, "checkpoints"), maxSizeMb: 0.002 },
      marketPricing: false,
      ...extra,
    }),
  );
}
