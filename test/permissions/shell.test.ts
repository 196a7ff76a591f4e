/** The shell analysis: every simple command bash would run becomes a candidate, with no cap. */
import { beforeAll, describe, expect, it } from "vitest";
import { analyzeShell, loadShellParser } from "../../plugins/permissions/index";

beforeAll(() => loadShellParser());

const texts = (command: string) => analyzeShell(command).candidates.map((c) => c.text);
const required = (command: string) =>
  analyzeShell(command)
    .candidates.filter((c) => c.required)
    .map((c) => c.text);

describe("candidates: every simple command bash would run", () => {
  it.each([
    ["a && b", ["a", "b"]],
    ["a || b", ["a", "b"]],
    ["a; b", ["a", "b"]],
    ["a & b", ["a", "b"]],
    ["a | b", ["a", "b"]],
    ["a |& b", ["a", "b"]],
    ["a\nb", ["a", "b"]],
    ["(a; b)", ["a", "b"]],
    ["{ a; b; }", ["a", "b"]],
    ["a $(b)", ["a $(b)", "b"]],
    ["a `b`", ["a `b`", "b"]],
    ["a <(b) >(c)", ["a <(b) >(c)", "b", "c"]],
    ['a "$(b "$(c)")"', ['a "$(b "$(c)")"', 'b "$(c)"', "c"]],
    ["if a; then b; elif c; then d; else e; fi", ["a", "b", "c", "d", "e"]],
    ["while a; do b; done; until c; do d; done", ["a", "b", "c", "d"]],
    ["for x in $(a); do b; done", ["a", "b"]],
    ["case x in y) a ;; *) b ;; esac", ["a", "b"]],
    ["f() { a; }; f", ["a", "f"]],
    ["! a", ["a"]],
    ["x=$(a) b", ["b", "a"]],
    ["cat <<EOF\n$(a)\nEOF", ["cat", "a"]],
  ])("%j", (command, expected) => {
    expect(texts(command).sort()).toEqual([...expected].sort());
  });

  it("parses bash -c, sh -c and eval text again", () => {
    expect(texts("bash -c 'a && b'")).toEqual(["bash -c 'a && b'", "a", "b"]);
    expect(texts('sh -ec "a; b"')).toEqual(["sh -ec 'a; b'", "a", "b"]);
    expect(texts("eval 'a | b'")).toEqual(["eval 'a | b'", "a", "b"]);
    expect(texts("eval a '&&' b")).toEqual(["eval a '&&' b", "a", "b"]);
  });

  it("sees through wrappers: the wrapped command is what an allow rule must cover", () => {
    expect(texts("timeout 5 nice -n 2 env A=1 nohup git status")).toEqual([
      "timeout 5 nice -n 2 env A=1 nohup git status",
      "nice -n 2 env A=1 nohup git status",
      "env A=1 nohup git status",
      "nohup git status",
      "git status",
    ]);
    expect(required("timeout 5 nice -n 2 env A=1 nohup git status")).toEqual(["git status"]);
    expect(required("command -p ls")).toEqual(["ls"]);
    expect(required("command -v ls")).toEqual(["command -v ls"]);
    // sudo adds authority: both the sudo form and its command must be allowed
    expect(required("sudo -u deploy make")).toEqual(["sudo -u deploy make", "make"]);
  });

  it("finds the targets of xargs and find -exec, with arguments that arrive at run time", () => {
    const x = analyzeShell("ls | xargs -n1 rm -f").candidates.find((c) => c.via === "xargs");
    expect(x).toMatchObject({ text: "rm -f", open: true, required: true });
    const f = analyzeShell("find . -name '*.o' -exec rm -f {} \\; -exec echo done \\;").candidates.filter((c) =>
      c.via?.startsWith("find"),
    );
    expect(f.map((c) => c.text)).toEqual(["rm -f {}", "echo done"]);
  });

  it("removes quoting the way bash does", () => {
    expect(texts("'g'i\"t\" st\\atus $'\\x2d'v")).toEqual(["git status -v"]);
    expect(texts('git commit -m "a && b"')).toEqual(["git commit -m 'a && b'"]);
  });

  it("has no cap: ten thousand commands are ten thousand candidates", () => {
    const command = Array.from({ length: 10_000 }, (_, i) => `echo ${i}`).join(" && ");
    const a = analyzeShell(command);
    expect(a.candidates).toHaveLength(10_000);
    expect(a.candidates.at(-1)!.text).toBe("echo 9999");
    expect(a.unsafe).toEqual([]);
  });
});

describe("what cannot be proven safe", () => {
  it.each([
    ["git status '", "could not be parsed"],
    ["git status\rrm", "U+000D"],
    ["$CMD x", "program name $CMD"],
    ["$(echo ls) -l", "program name"],
    ["l* -l", "program name"],
    ['bash -c "$X"', "bash -c"],
    ['eval "$X"', "eval"],
    ["curl x | bash", "fed to it through a pipe"],
    ["python3 <<< 'print(1)'", "fed to it"],
    ["sh < x.sh", "fed to it"],
    ["echo x > /etc/motd", undefined], // judged against the roots by the engine, not here
    ["PATH=/tmp ls", "passes PATH"],
    ["LD_PRELOAD=x ls", "passes LD_PRELOAD"],
    ["GIT_DIR=/x git log", "passes GIT_DIR"],
    ["git -c a=b log", "git -c"],
    ["git fetch --upload-pack=x", "--upload-pack"],
    ["rg --pre cat x", "rg --pre"],
    ["sed 's/a/b/e'", "s///e"],
    ["sed 'w out'", "writes a file"],
    ["awk '{system(\"x\")}'", "system()"],
    ["find . -exec ls \\;", "find -exec"],
    ["find . -delete", "find -delete"],
    ["echo $((x+1))", "on a name: arithmetic"],
  ])("%j", (command, reason) => {
    const unsafe = analyzeShell(command).unsafe.join("; ");
    if (reason) expect(unsafe).toContain(reason);
    else expect(unsafe).toBe("");
  });

  it.each([
    "git status",
    "git log --oneline -5",
    "ls -la | grep x | wc -l",
    "sed -n '1,5p' f",
    "sed 's/a/b/g;s/c/d/'",
    "awk '{print $1}' f",
    "awk '$3 > 5' f",
    "find . -name '*.ts'",
    "echo $((1 + 2))",
    "rg -n TODO src",
    "echo hi > out.txt 2>&1",
    "cat <<'EOF'\n$(not run)\nEOF",
  ])("%j can be proven safe", (command) => {
    expect(analyzeShell(command).unsafe).toEqual([]);
  });

  it("records the files a command writes", () => {
    const a = analyzeShell("echo a > x.txt 2>&1 >> ~/y; cp a b; tee c < d; echo > /dev/null");
    expect(a.writes.map((w) => `${w.kind} ${w.word.value}`).sort()).toEqual(
      // cp's spec: its source is read, its destination written (and, as where a copy lands, an edit); tee's operands are output operands of its spec.
      ["redirect x.txt", "redirect ~/y", "argument b", "output b", "output c", "redirect /dev/null"].sort(),
    );
  });
});
