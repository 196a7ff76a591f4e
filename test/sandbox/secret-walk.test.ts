/**
 * The secret-name walk kept between one run's commands (plugins/sandbox/secret-walk.ts): a folder
 * is read again only when its stamp changed, so what a command changes in the workspace must reach
 * the next command's masks all the same — a new `.env`, a key in a new folder, a folder replaced
 * (new inode, same path), a folder replaced by a link, a link named like a key. And the walk finds
 * at least what the glob it replaced found (tinyglobby, `**` patterns, links left out).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tinyglobby } from "../../plugins/_kits/lazy/index";
import { SECRET_PATTERNS } from "../../plugins/sandbox/secrets";
import { SecretWalk } from "../../plugins/sandbox/secret-walk";
import { type Message, type SummonOptions, summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, resultOf } from "../helpers/collect";
import { outputs, sandboxPlace, SKIP } from "./helpers";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function folder(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "ubq-secret-walk-")));
  made.push(dir);
  return dir;
}

/** Wait until every folder under `root` was last changed longer ago than the walk's racy window, so its readings are kept. */
async function settled(root: string): Promise<void> {
  const newest = (dir: string): number => {
    const info = statSync(dir);
    let latest = Math.max(info.mtimeMs, info.ctimeMs);
    for (const name of readdirSync(dir, { withFileTypes: true }))
      if (name.isDirectory()) latest = Math.max(latest, newest(join(dir, name.name)));
    return latest;
  };
  // Times in whole seconds are read as a coarse file system's (a 2 s window); else the window is 50 ms.
  const wait = () => (newest(root) % 1000 === 0 ? 2100 : 100);
  while (Date.now() - newest(root) <= wait()) await new Promise((r) => setTimeout(r, 50));
}

describe("SecretWalk", () => {
  it("finds every file the glob it replaced finds (odd names, folders named like a secret, skipped folders)", () => {
    const root = folder();
    const names = [
      ".env",
      ".env.local",
      ".env.",
      ".envrc",
      "x.pem",
      ".pem",
      "..pem",
      "a.key",
      ".key",
      "id_rsa",
      "id_rsa.pub",
      "id_ed25519",
      "id_ecdsa",
      "X.PEM",
      "a\n.pem",
      ".env\n",
      "sp ace.pem",
      "-x.pem",
      "[a].pem",
      "{b}.key",
      "x.pem.bak",
      "plain.txt",
    ];
    for (const dir of [
      "",
      "sub/deep",
      ".vscode",
      "node_modules",
      "sub/node_modules",
      ".git",
      "sub/.git",
      "named/.env",
      "named/certs.pem/in",
    ]) {
      mkdirSync(join(root, dir), { recursive: true });
      for (const name of names) writeFileSync(join(root, dir, name), "x");
    }
    const glob = tinyglobby().globSync([...SECRET_PATTERNS], {
      dot: true,
      absolute: true,
      onlyFiles: true,
      followSymbolicLinks: false,
      ignore: ["**/node_modules/**", "**/.git/**"],
      cwd: root,
    });
    const walked = new Set(new SecretWalk(SECRET_PATTERNS).walk(root).files);
    expect(glob.length).toBeGreaterThan(40);
    expect(glob.filter((p) => !walked.has(p))).toEqual([]);
    // Nothing under node_modules or .git, as before.
    expect([...walked].filter((p) => /\/(node_modules|\.git)\//.test(p))).toEqual([]);
  });

  it("finds every private key the permission engine names: every OpenSSH id_ kind, PKCS#12 and Java keystores (red team zo)", () => {
    const root = folder();
    const keys = ["id_dsa", "id_ecdsa_sk", "id_ed25519_sk", "cert.p12", "store.pfx", "app.jks", "release.keystore"];
    for (const name of keys) writeFileSync(join(root, name), "secret");
    writeFileSync(join(root, "id_dsa.pub"), "public");
    const found = new Set(new SecretWalk(SECRET_PATTERNS).walk(root).files);
    expect(keys.filter((name) => !found.has(join(root, name)))).toEqual([]);
    expect(found.has(join(root, "id_dsa.pub"))).toBe(false);
  });

  it("a folder's reading as a root of its own does not stand for it below a folder named like a secret (nested writable folders)", () => {
    const outer = folder();
    const inner = join(outer, "certs.pem", "b");
    mkdirSync(inner, { recursive: true });
    writeFileSync(join(inner, "notes.txt"), "n");
    const walk = new SecretWalk(SECRET_PATTERNS, { racyMs: -1 });
    expect(walk.walk(inner).files).toEqual([]);
    expect(walk.walk(outer).files).toEqual([join(inner, "notes.txt")]);
    expect(walk.walk(inner).files).toEqual([]);
  });

  it("reads a kept folder again when a file appears in it, when it is replaced, and stops at a link put in its place", async () => {
    const root = folder();
    mkdirSync(join(root, "src", "lib"), { recursive: true });
    mkdirSync(join(root, "conf"));
    mkdirSync(join(root, "other"));
    writeFileSync(join(root, "conf", "app.key"), "k");
    writeFileSync(join(root, "other", "notes.txt"), "n");
    // racyMs -1: every reading is kept, however recent its folder's change.
    const walk = new SecretWalk(SECRET_PATTERNS, { racyMs: -1 });
    expect(walk.walk(root).files).toEqual([join(root, "conf", "app.key")]);
    writeFileSync(join(root, "src", "lib", ".env"), "A=1"); // a folder read before gains one
    rmSync(join(root, "conf"), { recursive: true }); // a folder replaced: same path, new inode
    mkdirSync(join(root, "conf"));
    writeFileSync(join(root, "conf", "server.pem"), "p");
    mkdirSync(join(root, "new", "deep"), { recursive: true }); // a new folder
    writeFileSync(join(root, "new", "deep", "id_rsa"), "r");
    symlinkSync(join(root, "other", "notes.txt"), join(root, "src", "link.key")); // a link named like a key
    const second = walk.walk(root);
    expect(second.files.sort()).toEqual(
      [join(root, "src", "lib", ".env"), join(root, "conf", "server.pem"), join(root, "new", "deep", "id_rsa")].sort(),
    );
    expect(second.linkTargets).toEqual([join(root, "other", "notes.txt")]);
    // A folder replaced by a link to another one: not followed, and nothing of the old folder is reported.
    rmSync(join(root, "conf"), { recursive: true });
    symlinkSync(join(root, "other"), join(root, "conf"));
    const third = walk.walk(root);
    expect(third.files.sort()).toEqual([join(root, "src", "lib", ".env"), join(root, "new", "deep", "id_rsa")].sort());
  });
});

const place = sandboxPlace();

/** One Bash call per turn (ids c0, c1, …); `between(i)` runs on the host before call i is made. */
function runTurns(commands: string[], between: (i: number) => void, options: SummonOptions): Promise<Message[]> {
  const model = scriptedModel(({ index }) => {
    if (index >= commands.length) return "done";
    between(index);
    return { toolCalls: [{ toolName: "Bash", input: { command: commands[index]! }, id: `c${index}` }] };
  });
  return collect(summon("go", { model, persistSession: false, persistTodos: false, ...options }));
}

describe.skipIf(SKIP)("secrets made between two commands of one run (real bubblewrap)", () => {
  it("hides from the next command a key the user made in a folder read before, keys a command made (in a new folder, by a link), a key in a folder replaced; a folder replaced by a link is read through", async () => {
    const ws = place.ws();
    mkdirSync(join(ws, "src"));
    writeFileSync(join(ws, "src", "index.ts"), "export {};\n");
    mkdirSync(join(ws, "conf"));
    writeFileSync(join(ws, "conf", "settings.json"), "{}\n");
    mkdirSync(join(ws, "lib"));
    writeFileSync(join(ws, "lib", "old.pem"), "OLD-KEY\n");
    writeFileSync(join(ws, "plain.txt"), "PLAIN-D\n");
    mkdirSync(join(ws, "elsewhere"));
    writeFileSync(join(ws, "elsewhere", "notes.txt"), "PUBLIC-E\n");
    // The first command's walk keeps these folders' readings (they are older than its racy window).
    await settled(ws);
    const messages = await runTurns(
      [
        "echo ready",
        // What the user changed since the last command, read first (the walk before this command
        // met those folders changed), then the command's own secrets.
        "cat src/dev.key conf/app.pem; cat lib/notes.txt; echo C1; mkdir -p new/deep && echo SECRET-B > new/deep/id_rsa; echo SECRET-F > src/extra.pem; ln -s ../plain.txt src/link.key",
        "cat src/dev.key new/deep/id_rsa src/extra.pem conf/app.pem plain.txt; cat lib/notes.txt; echo END",
      ],
      (i) => {
        if (i !== 1) return;
        // The user's side, between the first two commands: a key in a folder read before (a .env
        // made there is taken out of the workspace by the guard's sweep, whoever made it), a
        // folder replaced (same path, a new inode) holding a key, a folder replaced by a link.
        writeFileSync(join(ws, "src", "dev.key"), "SECRET-A\n");
        rmSync(join(ws, "conf"), { recursive: true });
        mkdirSync(join(ws, "conf"));
        writeFileSync(join(ws, "conf", "app.pem"), "SECRET-C\n");
        rmSync(join(ws, "lib"), { recursive: true });
        symlinkSync("elsewhere", join(ws, "lib"));
      },
      { cwd: ws, sandbox: true, permissionMode: "bypassPermissions" },
    );
    const out = outputs(messages);
    expect(resultOf(messages).isError).toBe(false);
    expect(out.c1!.content).toContain("C1");
    for (const secret of ["SECRET-A", "SECRET-C"]) expect(out.c1!.content).not.toContain(secret);
    expect(out.c1!.content).toContain("PUBLIC-E");
    const read = out.c2!.content;
    expect(read).toContain("END");
    for (const secret of ["SECRET-A", "SECRET-B", "SECRET-C", "SECRET-F", "PLAIN-D"])
      expect(read).not.toContain(secret);
    // Read through the link that replaced lib/: nothing of the old lib/old.pem was laid over it.
    expect(read).toContain("PUBLIC-E");
    expect(existsSync(join(ws, "elsewhere", "old.pem"))).toBe(false);
    expect(readFileSync(join(ws, "src", "extra.pem"), "utf8")).toBe("SECRET-F\n");
  });
});
