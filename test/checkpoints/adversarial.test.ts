/**
 * The checkpoints feature attacked the way a hostile repository (or a model running Bash in it)
 * would: every test plants something in the workspace, the environment or the transcript, then
 * snapshots and rewinds for real (real git, a temp HOME), and proves with marker files outside
 * the workspace that nothing was read into the store, written or removed out of the folder.
 */
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { withEnv } from "../helpers/env";
import { ActiveRunError, CheckpointNotFoundError, rewindFiles } from "ubiquity";
import { ofType, resultOf } from "../helpers/collect";
import { tempHome } from "../helpers/temp-home";
import { SessionStore } from "../../plugins/sessions/index";
import { ShadowStore, storeDirFor } from "../../plugins/checkpoints/store";
import { writeCommit, writeRootsTree } from "../../plugins/checkpoints/objects";
import { hashTree, scriptedRun, temp } from "./helpers";

const bash = (command: string) => ({ toolCalls: [{ toolName: "Bash", input: { command } }] });
const home = tempHome();

/** A workspace with `files`, a folder outside it with a marker, and a run of `command` there (checkpoints under the temp HOME). */
async function attackRun(
  command: (outside: string, dir: string) => string,
  files: Record<string, string> = { "f.txt": "one\n" },
  setup: (dir: string, outside: string) => void = () => {},
) {
  const dir = temp();
  const outside = temp("ubq-ckpt-outside-");
  writeFileSync(join(outside, "marker.txt"), "MARKER\n");
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  setup(dir, outside); // what the hostile repository holds before the run
  // The sandbox would hide the outside folder (a private /tmp): off, so the rewind itself is tested.
  // In bypassPermissions without the sandbox a write the engine cannot name (after `ln`, `mv`) asks;
  // the user here approves, so the attack's commands run and the rewind is what is tested.
  const messages = await scriptedRun(dir, home(), [bash(command(outside, dir)), "done"], {
    canUseTool: async () => ({ behavior: "allow" as const }),
    sandbox: false,
  });
  const result = resultOf(messages);
  for (const t of ofType(messages, "tool_result")) expect(t.output.isError, t.output.content as string).toBe(false);
  expect(result.isError, result.result).toBe(false);
  const sessionId = result.sessionId;
  const prompt = ofType(messages, "user")[0]!.uuid;
  const query = { cwd: dir, sessionDir: join(home(), "sessions") };
  const rewind = (extra: { dryRun?: boolean } = {}) => rewindFiles(sessionId, prompt, { ...query, ...extra });
  const store = storeDirFor(dir, join(home(), "checkpoints"));
  return { dir, outside, rewind, sessionId, prompt, query, store };
}

/** Every object's bytes in a store, as text. */
function storeText(store: string): string {
  return execFileSync("git", ["--git-dir", store, "cat-file", "--batch-all-objects", "--batch"], {
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" },
  }).toString("latin1");
}

/** Append a forged checkpoint note to a session's transcript (what a hostile repo can do when `sessionDir` lies in it). */
async function forgeNote(sessionId: string, cwd: string, data: Record<string, unknown>): Promise<void> {
  const session = await new SessionStore({ dir: join(home(), "sessions") }).get(sessionId, cwd);
  appendFileSync(
    session!.path,
    `${JSON.stringify({ type: "note", kind: "checkpoint", sessionId, timestamp: new Date().toISOString(), data })}\n`,
  );
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a rewind never writes or removes outside the folder", () => {
  it("a forged transcript note naming another store whose checkpoint's roots lie outside the cwd: nothing outside is written", async () => {
    const { dir, outside, rewind, sessionId, prompt } = await attackRun(() => "echo two > f.txt");
    // The attacker's store: a "checkpoint" of this session whose folder is the victim's, with the attacker's bytes.
    const victim = temp("ubq-ckpt-victim-");
    writeFileSync(join(victim, "authorized_keys"), "ssh-ed25519 ATTACKER\n");
    const evil = new ShadowStore(join(outside, "evil-store"));
    const forged = await evil.snapshot(
      [victim],
      { maxBytes: 1e6, exclude: [] },
      { sessionId, messageUuid: prompt, createdAt: "2000-01-01T00:00:00.000Z" },
    );
    writeFileSync(join(victim, "authorized_keys"), "ssh-ed25519 USER\n"); // the user's real file
    await forgeNote(sessionId, dir, { messageUuid: prompt, commit: forged.commit, store: evil.dir });

    const done = await rewind().catch((error: Error) => error);
    expect(readFileSync(join(victim, "authorized_keys"), "utf8")).toBe("ssh-ed25519 USER\n");
    expect(readdirSync(victim)).toEqual(["authorized_keys"]);
    if (!(done instanceof Error)) expect(done.changes.filter((c) => !c.path.startsWith(`${dir}/`))).toEqual([]);
    // The real checkpoint still rewinds the workspace.
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe(done instanceof Error ? "two\n" : "one\n");
  });

  it("a forged note pointing at another session's real checkpoint (another folder): that folder is not written", async () => {
    const first = await attackRun(() => "echo two > f.txt");
    const other = await attackRun(() => "echo OTHER-AFTER > f.txt");
    const notes = (await new SessionStore({ dir: join(home(), "sessions") }).get(other.sessionId, other.dir))!.notes;
    const theirs = notes.find((n) => n.kind === "checkpoint")!.data as { commit: string; store: string };
    await forgeNote(first.sessionId, first.dir, {
      messageUuid: first.prompt,
      commit: theirs.commit,
      store: theirs.store,
    });

    await first.rewind().catch(() => undefined);
    expect(readFileSync(join(other.dir, "f.txt"), "utf8")).toBe("OTHER-AFTER\n");
    // Asking with the other session's commit as the message uuid does not reach it either.
    await rewindFiles(first.sessionId, theirs.commit, first.query).catch(() => undefined);
    expect(readFileSync(join(other.dir, "f.txt"), "utf8")).toBe("OTHER-AFTER\n");
  });

  it("the permitted folder itself replaced by a symlink outside after the checkpoint: nothing outside is written, removed, or read into the store", async () => {
    const { dir, outside, rewind, store } = await attackRun(() => "echo two > f.txt");
    writeFileSync(join(outside, "outside-secret.txt"), "OUTSIDE-SECRET-0815\n");
    const before = hashTree(outside);
    // Whoever did it (a Bash call from the parent folder, another program): the workspace path now leads outside.
    renameSync(dir, `${dir}-moved`);
    symlinkSync(outside, dir);
    try {
      await expect(rewind()).rejects.toThrow(/resolves to .*refused/);
      expect(hashTree(outside)).toEqual(before);
      expect(storeText(store)).not.toContain("OUTSIDE-SECRET-0815");
    } finally {
      unlinkSync(dir);
      renameSync(`${dir}-moved`, dir);
    }
  });

  it("a store inside the workspace (checkpoints.dir there) holding a forged commit with folders outside: refused, even when asked with that store", async () => {
    const dir = temp();
    writeFileSync(join(dir, "f.txt"), "one\n");
    const inRepo = join(dir, ".ubq-checkpoints");
    const messages = await scriptedRun(dir, home(), [bash("echo two > f.txt"), "done"], {
      checkpoints: { dir: inRepo },
    });
    const { sessionId } = resultOf(messages);
    const prompt = ofType(messages, "user")[0]!.uuid;
    const victim = temp("ubq-ckpt-victim-");
    writeFileSync(join(victim, "authorized_keys"), "ssh-ed25519 ATTACKER\n");
    // The repository writes into the store lying in it: a commit of this session naming the victim's folder.
    const own = new ShadowStore(storeDirFor(dir, inRepo));
    const forged = await own.snapshot(
      [victim],
      { maxBytes: 1e6, exclude: [] },
      { sessionId, messageUuid: prompt, createdAt: "2000-01-01T00:00:00.000Z" },
    );
    writeFileSync(join(victim, "authorized_keys"), "ssh-ed25519 USER\n");
    await forgeNote(sessionId, dir, { messageUuid: prompt, commit: forged.commit, store: own.dir });

    await expect(
      rewindFiles(sessionId, prompt, { cwd: dir, sessionDir: join(home(), "sessions"), checkpointDir: inRepo }),
    ).rejects.toThrow(/lies inside .* where the workspace can write it: refused/);
    expect(readFileSync(join(victim, "authorized_keys"), "utf8")).toBe("ssh-ed25519 USER\n");
  });

  it("an additional directory outside the cwd is still rewound from the project's own store (and refused, naming the fix, when asked without it)", async () => {
    const dir = temp();
    const extra = temp("ubq-ckpt-extra-");
    writeFileSync(join(dir, "f.txt"), "one\n");
    writeFileSync(join(extra, "g.txt"), "g one\n");
    const messages = await scriptedRun(
      dir,
      home(),
      [bash(`echo two > f.txt && echo 'g two' > ${extra}/g.txt`), "done"],
      { additionalDirectories: [extra] },
    );
    const { sessionId } = resultOf(messages);
    const prompt = ofType(messages, "user")[0]!.uuid;
    const query = { cwd: dir, sessionDir: join(home(), "sessions") };
    // Asked without the run's checkpoints.dir: the note's store is not the one this query names.
    await expect(rewindFiles(sessionId, prompt, query)).rejects.toThrow(/pass checkpointDir/);
    expect(readFileSync(join(extra, "g.txt"), "utf8")).toBe("g two\n");
    const done = await rewindFiles(sessionId, prompt, { ...query, checkpointDir: join(home(), "checkpoints") });
    expect(done.changes.map((c) => c.path).sort()).toEqual([join(dir, "f.txt"), join(extra, "g.txt")].sort());
    expect(readFileSync(join(extra, "g.txt"), "utf8")).toBe("g one\n");
  });

  it("a note naming another session's checkpoint of the same folder is not this session's: its commit is not a checkpoint here", async () => {
    const first = await attackRun(() => "echo two > f.txt");
    writeFileSync(join(first.dir, "f.txt"), "before second\n");
    const second = await scriptedRun(first.dir, home(), [bash("echo three > f.txt"), "done"]);
    const notes = (await new SessionStore({ dir: join(home(), "sessions") }).get(
      resultOf(second).sessionId,
      first.dir,
    ))!.notes;
    const theirs = notes.find((n) => n.kind === "checkpoint")!.data as { commit: string; store: string };
    await forgeNote(first.sessionId, first.dir, { messageUuid: "forged", commit: theirs.commit, store: theirs.store });

    await expect(rewindFiles(first.sessionId, theirs.commit, first.query)).rejects.toThrow(CheckpointNotFoundError);
    expect(readFileSync(join(first.dir, "f.txt"), "utf8")).toBe("three\n");
  });

  it("a forged checkpoint of the cwd itself holding a `.git/` path: the user's repository is not written", async () => {
    const { dir, outside, rewind, sessionId, prompt } = await attackRun(
      (_o, d) => `git -C ${d} init -q && echo two > f.txt`,
    );
    const before = hashTree(join(dir, ".git"), { withGit: true });
    // Craft a tree [cwd: { .git: { config } }] in a store of the attacker's.
    const storeDir = join(outside, "evil-store");
    const evil = new ShadowStore(storeDir);
    await evil.init();
    const g = (args: string[], input?: string) =>
      execFileSync("git", ["--git-dir", storeDir, ...args], {
        input,
        env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" },
      })
        .toString()
        .trim();
    const blob = g(["hash-object", "-w", "--stdin"], `#!/bin/sh\ntouch ${outside}/PWNED\n`);
    const hooks = g(["mktree"], `100755 blob ${blob}\tpost-checkout\n`);
    const gitTree = g(["mktree"], `040000 tree ${hooks}\thooks\n`);
    const rootTree = g(
      ["mktree"],
      `040000 tree ${gitTree}\t.git\n100644 blob ${g(["hash-object", "-w", "--stdin"], "two\n")}\tf.txt\n`,
    );
    const meta = {
      sessionId,
      messageUuid: prompt,
      createdAt: "2000-01-01T00:00:00.000Z",
      roots: [dir],
      notCovered: [],
      maxBytes: 1e6,
      exclude: [],
    };
    const commit = writeCommit(storeDir, writeRootsTree(storeDir, [rootTree]), JSON.stringify(meta));
    await forgeNote(sessionId, dir, { messageUuid: prompt, commit, store: storeDir });

    await rewind().catch(() => undefined);
    expect(hashTree(join(dir, ".git"), { withGit: true })).toEqual(before);
    expect(existsSync(join(dir, ".git", "hooks", "post-checkout"))).toBe(false);
  });

  it("a forged note naming the user's own repository (.git) as the store, at a commit the repository shipped: the repository is not written", async () => {
    const { dir, rewind, sessionId, prompt } = await attackRun(
      (_o, _d) => `echo two > f.txt`,
      { "f.txt": "one\n" },
      (d) => {
        const g = (...args: string[]) =>
          execFileSync("git", args, {
            cwd: d,
            env: {
              ...process.env,
              GIT_CONFIG_GLOBAL: "/dev/null",
              GIT_AUTHOR_NAME: "a",
              GIT_AUTHOR_EMAIL: "a@x",
              GIT_COMMITTER_NAME: "a",
              GIT_COMMITTER_EMAIL: "a@x",
            },
          });
        g("init", "-q");
        writeFileSync(join(d, ".git", "info", "exclude"), "# the user's own excludes\nsecret/\n");
        g("add", "f.txt");
        g("commit", "-qm", "init");
      },
    );
    // A commit in the cloned history whose message is checkpoint metadata, with this session's id.
    const env = {
      ...process.env,
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "a",
      GIT_AUTHOR_EMAIL: "a@x",
      GIT_COMMITTER_NAME: "a",
      GIT_COMMITTER_EMAIL: "a@x",
    };
    const g = (args: string[], input?: string) => execFileSync("git", args, { cwd: dir, input, env }).toString().trim();
    const inner = g(["rev-parse", "HEAD^{tree}"]);
    const top = g(["mktree"], `040000 tree ${inner}\t0\n`);
    const meta = {
      sessionId,
      messageUuid: prompt,
      createdAt: "2000-01-01T00:00:00.000Z",
      roots: [dir],
      notCovered: [],
      maxBytes: 1e6,
      exclude: [],
    };
    const commit = g(["commit-tree", top, "-m", JSON.stringify(meta)]);
    const before = hashTree(join(dir, ".git"), { withGit: true });
    await forgeNote(sessionId, dir, { messageUuid: prompt, commit, store: join(dir, ".git") });

    await rewind().catch(() => undefined);
    expect(hashTree(join(dir, ".git"), { withGit: true })).toEqual(before);
    expect(readFileSync(join(dir, ".git", "info", "exclude"), "utf8")).toContain("the user's own excludes");
  });

  it("a hard link to a file outside, made after the checkpoint: the restore replaces the link, the outside file keeps its bytes", async () => {
    const { dir, outside, rewind } = await attackRun((o) => `rm f.txt && ln ${o}/marker.txt f.txt`);
    expect(lstatSync(join(dir, "f.txt")).nlink).toBe(2);
    const done = await rewind();
    expect(done.refused).toEqual([]);
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("one\n");
    expect(readFileSync(join(outside, "marker.txt"), "utf8")).toBe("MARKER\n");
    expect(lstatSync(join(outside, "marker.txt")).nlink).toBe(1);
  });

  it("symlinked folders at depth, made after the checkpoint, pointing outside: removed, not written or removed through", async () => {
    // a/b/c/file.txt existed; the agent replaces a/b with a link outside, where a file of the same name waits.
    const { dir, outside, rewind } = await attackRun(
      (o) =>
        `mkdir -p ${o}/c && echo OUT > ${o}/c/file.txt && echo OUT > ${o}/c/new.txt && rm -rf a/b && ln -s ${o} a/b && echo new > a/b2.txt`,
      { "a/b/c/file.txt": "inside\n", "a/keep.txt": "k\n" },
    );
    const before = hashTree(outside);
    const done = await rewind();
    expect(hashTree(outside)).toEqual(before);
    expect(lstatSync(join(dir, "a", "b")).isDirectory()).toBe(true);
    expect(readFileSync(join(dir, "a", "b", "c", "file.txt"), "utf8")).toBe("inside\n");
    expect(existsSync(join(dir, "a", "b2.txt"))).toBe(false);
    expect(done.refused).toEqual([]);
  });

  it("symlink loops, a link to / and a link climbing out (made after the checkpoint): the rewind ends, removes them, and writes nothing outside", async () => {
    const { dir, outside, rewind } = await attackRun(
      (o) =>
        `ln -s loop loop && ln -s a2 a1 && ln -s a1 a2 && ln -s / rootlink && mkdir d && ln -s ../.. d/up && ln -s ${o} d/out && echo two > f.txt`,
    );
    const before = hashTree(outside);
    const done = await rewind();
    expect(hashTree(outside)).toEqual(before);
    expect(readdirSync(dir).sort()).toEqual(["f.txt"]);
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("one\n");
    expect(done.refused).toEqual([]);
  });

  it("a folder swapped for a symlink outside between the plan and the writes (TOCTOU): the write and the removal are refused, outside untouched", async () => {
    const { dir, outside, rewind } = await attackRun((_o) => `echo changed > sub/file.txt && echo made > sub/new.txt`, {
      "sub/file.txt": "inside\n",
    });
    writeFileSync(join(outside, "file.txt"), "OUTSIDE file\n");
    writeFileSync(join(outside, "new.txt"), "OUTSIDE new\n");
    const before = hashTree(outside);
    // The plan is made; while the rewind fetches the blobs to write, the folder becomes a link out.
    const original = ShadowStore.prototype.blobs;
    vi.spyOn(ShadowStore.prototype, "blobs").mockImplementation(async function (this: ShadowStore, ids) {
      rmSync(join(dir, "sub"), { recursive: true });
      symlinkSync(outside, join(dir, "sub"));
      return original.call(this, ids);
    });
    const done = await rewind();
    expect(hashTree(outside)).toEqual(before);
    expect(done.refused.map((r) => r.path).sort()).toEqual([join(dir, "sub", "file.txt"), join(dir, "sub", "new.txt")]);
    expect(done.refused[0]!.reason).toMatch(/symlink to .*outside/);
  });

  it("odd names (newline, leading dash, unicode forms, case pairs, a 255-byte name): each restored or removed in place, nothing else touched", async () => {
    const nfc = "caf\u00e9.txt";
    const nfd = "cafe\u0301.txt";
    const long = `${"x".repeat(251)}.txt`;
    const names = ["new\nline.txt", "-rf", "--force.txt", nfc, nfd, "Case.txt", "case.txt", long];
    const files = Object.fromEntries(names.map((n) => [n, `orig ${JSON.stringify(n)}\n`]));
    const { dir, outside, rewind } = await attackRun(
      () =>
        `for f in ./*; do echo changed > "$f"; done && echo made > './-n' && echo made > './..x' && printf made > "$(printf 'made\\nnew')"`,
      files,
    );
    const before = hashTree(outside);
    const done = await rewind();
    expect(done.refused).toEqual([]);
    for (const n of names) expect(readFileSync(join(dir, n), "utf8")).toBe(`orig ${JSON.stringify(n)}\n`);
    expect(readdirSync(dir).sort()).toEqual(names.slice().sort());
    expect(hashTree(outside)).toEqual(before);
  });
});

describe("a snapshot never reads outside, hangs, or runs anything", () => {
  it("a symlink to ~/.ssh/id_rsa and one to a folder outside: the store keeps the links, never the secret's bytes", async () => {
    mkdirSync(join(home(), ".ssh"));
    writeFileSync(join(home(), ".ssh", "id_rsa"), "-----BEGIN SECRET-KEY-TEXT-4711-----\n");
    const { dir, store, rewind } = await attackRun(
      () => "echo two > f.txt && echo more > key2",
      { "f.txt": "one\n" },
      (d, o) => {
        symlinkSync(join(home(), ".ssh", "id_rsa"), join(d, "key"));
        symlinkSync(join(home(), ".ssh"), join(d, "sshdir"));
        symlinkSync(o, join(d, "out"));
      },
    );
    await rewind({ dryRun: true }); // a rewind snapshots the current state too
    const text = storeText(store);
    expect(text).toContain(`${home()}/.ssh/id_rsa`); // the link target is there: the links were snapshotted
    expect(text).not.toContain("SECRET-KEY-TEXT-4711");
    expect(text).not.toContain("MARKER");
    expect(readFileSync(join(home(), ".ssh", "id_rsa"), "utf8")).toMatch(/4711/);
    expect(lstatSync(join(dir, "key")).isSymbolicLink()).toBe(true);
  });

  // A hang would show as this test's timeout; how long it takes is not asserted.
  it("FIFOs in the workspace (one before, one after the checkpoint) do not hang the snapshot or the rewind", async () => {
    // One FIFO before the checkpoint, one made after it (git does not list FIFOs: neither is stored nor removed).
    const { dir, rewind } = await attackRun(
      () => "mkfifo pipe2 && echo two > f.txt",
      { "f.txt": "one\n" },
      (d) => execFileSync("mkfifo", [join(d, "pipe")]),
    );
    const done = await rewind();
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("one\n");
    expect(done.changes).toEqual([{ path: join(dir, "f.txt"), action: "restored" }]);
    expect(lstatSync(join(dir, "pipe2")).isFIFO()).toBe(true);
    expect(lstatSync(join(dir, "pipe")).isFIFO()).toBe(true); // left alone
  });

  it("a `.git` file (gitdir: pointer) and a planted `.git` folder in subfolders: git is not pointed elsewhere, the outside repository is untouched", async () => {
    const { dir, outside, rewind } = await attackRun(
      () => "echo two > f.txt && echo in2 > ptr/in2.txt && echo p2 > planted/p2.txt",
      {
        "f.txt": "one\n",
        "ptr/in.txt": "in\n",
        "planted/p.txt": "p\n",
        "planted/.git/config": "[core]\n\tfsmonitor = touch PWNED\n",
      },
      (d, o) => {
        execFileSync("git", ["init", "-q", join(o, "repo")]);
        writeFileSync(join(o, "repo", "tracked"), "x\n");
        writeFileSync(join(d, "ptr", ".git"), `gitdir: ${o}/repo/.git\n`);
      },
    );
    const before = hashTree(join(outside, "repo"), { withGit: true });
    const done = await rewind();
    expect(hashTree(join(outside, "repo"), { withGit: true })).toEqual(before);
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("one\n");
    expect(done.notCovered.find((n) => n.path === join(dir, "ptr"))?.reason).toBe("nested-repository");
    expect(existsSync(join(dir, "ptr", ".git"))).toBe(true);
  });

  it("a workspace .gitattributes asking for a filter, eol conversion and ident, a .gitmodules, a negated .gitignore: bytes stored as they are, nothing run", async () => {
    const crlf = "line one\r\nline two\r\n$Id$\n";
    const { dir, outside, rewind } = await attackRun(
      () => "echo two > f.txt && printf 'changed\\n' > crlf.txt",
      {
        "f.txt": "one\n",
        "crlf.txt": crlf,
        ".gitattributes": "* filter=evil text eol=lf ident diff=evil\n",
        ".gitignore": "*\n!f.txt\n!crlf.txt\n",
      },
      (d, o) =>
        writeFileSync(
          join(d, ".gitmodules"),
          `[submodule "x"]\n\tpath = f.txt\n\turl = ext::sh -c touch% ${o}/PWNED\n`,
        ),
    );
    // The filter driver named by the workspace is not configured anywhere git would read for the store.
    const done = await rewind();
    expect(existsSync(join(outside, "PWNED"))).toBe(false);
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("one\n");
    expect(readFileSync(join(dir, "crlf.txt"), "utf8")).toBe(crlf);
    expect(done.refused).toEqual([]);
  });

  it("hostile GIT_* variables in the process environment (GIT_DIR, GIT_WORK_TREE, GIT_CONFIG_*, GIT_EXEC_PATH, GIT_SSH_COMMAND, GIT_TRACE, GIT_OBJECT_DIRECTORY) have no effect", async () => {
    const outside = temp("ubq-ckpt-env-");
    execFileSync("git", ["init", "-q", "--bare", join(outside, "other.git")]);
    const hostile: Record<string, string> = {
      GIT_DIR: join(outside, "other.git"),
      GIT_WORK_TREE: outside,
      GIT_INDEX_FILE: join(outside, "index"),
      GIT_OBJECT_DIRECTORY: join(outside, "objects"),
      GIT_TRACE: join(outside, "trace.log"),
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "core.sshCommand",
      GIT_CONFIG_VALUE_0: `touch ${join(outside, "PWNED")}`,
      GIT_EXEC_PATH: join(outside, "exec"),
      GIT_SSH_COMMAND: `touch ${join(outside, "PWNED")}`,
    };
    const before = hashTree(outside, { withGit: true });
    // Put back before hashTree runs git again below.
    await withEnv(hostile, async () => {
      const { dir, rewind } = await attackRun(() => "echo two > f.txt");
      await rewind();
      expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("one\n");
    });
    expect(hashTree(outside, { withGit: true })).toEqual(before);
    expect(existsSync(join(outside, "trace.log"))).toBe(false);
    expect(existsSync(join(outside, "PWNED"))).toBe(false);
  });
});

describe("the active-run lock, forged", () => {
  const lockDir = (store: string) => {
    mkdirSync(join(store, "active"), { recursive: true });
    return join(store, "active");
  };

  it("garbage, empty, folder-shaped and wrong-typed lock files neither crash the rewind nor stop it", async () => {
    const { dir, rewind, store } = await attackRun(() => "echo two > f.txt");
    const active = lockDir(store);
    writeFileSync(join(active, "garbage.json"), "\u0000\u00ff{{{not json");
    writeFileSync(join(active, "empty.json"), "");
    writeFileSync(join(active, "null.json"), "null");
    writeFileSync(join(active, "str.json"), JSON.stringify({ pid: "1", host: hostname() }));
    mkdirSync(join(active, "dir.json"));
    await rewind();
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("one\n");
  });

  it("a lock naming another live process on this host is trusted: the rewind refuses and writes nothing", async () => {
    const { dir, rewind, store } = await attackRun(() => "echo two > f.txt");
    writeFileSync(
      join(lockDir(store), "1-forged.json"),
      JSON.stringify({ pid: process.ppid, host: hostname(), sessionId: "other", since: "2026-01-01T00:00:00Z" }),
    );
    await expect(rewind()).rejects.toThrow(ActiveRunError);
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("two\n");
  });

  it("a lock naming this process's own pid that it does not hold is stale (a forged copy of a released lock)", async () => {
    const { dir, rewind, store } = await attackRun(() => "echo two > f.txt");
    writeFileSync(
      join(lockDir(store), `${process.pid}-copy.json`),
      JSON.stringify({ pid: process.pid, host: hostname(), sessionId: "x", since: "2026-01-01T00:00:00Z" }),
    );
    await rewind();
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("one\n");
  });
});
