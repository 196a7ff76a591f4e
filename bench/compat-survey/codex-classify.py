"""Judge the Codex survey: `python3 codex-classify.py before.jsonl after.jsonl` prints the table
and the counts (intended / refused / wrong / silent) of docs/guide/compat-survey.md, "Codex files".

Each file is judged by its worst part against what Codex documents (and, where the docs are silent,
what its source does), as codex-survey.ts records it next to ubiquity's reading:
- intended: read as Codex reads it (or as ubiquity documents it reads it differently, and why);
- refused: a part not applied, with a message naming it;
- wrong: read differently from Codex (a file Codex takes that ubiquity skips counts here, even with
  a message, as in the Claude Code survey);
- silent: a part Codex applies that does nothing here, without a word.
"""
import json
import sys

ORDER = {"intended": 0, "refused": 1, "wrong": 2, "silent": 3}


def judge(d):
    notes, worst = [], "intended"

    def mark(cls, note):
        nonlocal worst
        notes.append(note)
        if ORDER[cls] > ORDER[worst]:
            worst = cls

    kind = d["kind"]
    if d.get("missing") or d.get("threw"):
        mark("wrong", "missing" if d.get("missing") else f"threw: {d['threw']}")
        return worst, notes
    reports = d.get("reports", [])
    if kind in ("config", "project-config"):
        if d.get("problem"):
            mark("refused", "not read: " + d["problem"][:80])
        ignored = [r for r in reports if "ubiquity does not read were ignored" in r]
        if ignored:
            keys = ignored[0].split("ignored: ")[1].split(" (see")[0]
            mark("refused", f"keys reported and ignored: {keys}")
        for r in reports:
            if "model_provider" in r:
                mark("refused", "`model_provider` other than openai reported; its `model` not used")
            elif "[sandbox_workspace_write]" in r:
                mark("refused", "`[sandbox_workspace_write]` widening reported, not applied")
            elif ".startup_timeout" in r or ".tool_timeout" in r:
                mark("refused", "a server's timeout reported (one timeout for every server)")
            elif 'the key "tools"' in r:
                mark("refused", "a server's per-tool `approval_mode` table reported, not applied")
            elif "danger-full-access" in r:
                mark("refused", '`sandbox_mode = "danger-full-access"` reported, not applied')
        if d.get("codexProfile"):
            mark("refused", f"`profile = \"{d['codexProfile']['name']}\"` reported (profiles are not read)")
        if d.get("failed"):
            mark("refused", f"servers failed with a message: {[f['name'] for f in d['failed']]}")
        if d.get("servers"):
            notes.append("servers: " + ", ".join(f"{k} ({v})" for k, v in d["servers"].items()))
    elif kind == "prompt":
        codex = d["codex"]
        if d.get("loaded") is None:
            mark("wrong", f"skipped; Codex reads it as /{codex['name']}")
        else:
            if d["loaded"] != codex["name"]:
                mark("wrong", f"named /{d['loaded']}, Codex /{codex['name']}")
            if (codex.get("description") or "send saved prompt")[:60] != d.get("description"):
                mark("wrong", "description differs from Codex's")
            if codex.get("hint") != d.get("argumentHint"):
                mark("wrong", "argument-hint differs from Codex's")
            if not d.get("sameBody"):
                mark("wrong", "body differs from Codex's")
            if d.get("expansion") != "ok":
                mark("wrong", f"expansion: {d.get('expansion')}")
            if d.get("named"):
                notes.append("named " + ", ".join("$" + n for n in d["named"]))
            elif d.get("positional"):
                notes.append("$ARGUMENTS / $1…")
        for r in reports:
            if d.get("loaded") is not None:
                mark("refused", r[:100])
    elif kind == "agents":
        ours, theirs = d["ubiquity"], d["codex"]
        strip = lambda xs: [x.split(" (cut")[0] for x in xs]
        cut_at = lambda x: int(x.split(" (cut at ")[1].split()[0]) if " (cut at " in x else None
        if strip(ours) != strip(theirs):
            mark("wrong", f"read {ours}, Codex {theirs}")
        else:
            for o, t in zip(ours, theirs):
                a, b = cut_at(o), cut_at(t)
                # The cut keeps whole characters and drops trailing white space: a few bytes short is the same cut.
                if (a is None) != (b is None) or (a is not None and not 0 <= b - a <= 64):
                    mark("wrong", f"{o.split(' (')[0]} cut at {a or 'no'} bytes; Codex cuts the project's AGENTS.md files at 32 KiB in all ({b})")
                elif a is not None:
                    notes.append(f"cut at 32 KiB with the files before it, as in Codex")
        if d.get("includes"):
            mark("wrong", f"@includes followed (Codex reads the text as written): {d['includes']}")
        if d.get("link"):
            notes.append("a link to CLAUDE.md")
        if reports:
            mark("refused", reports[0][:100])
    elif kind == "plugin":
        if d.get("manifestKind") == "claude":
            notes.append("also has .claude-plugin/plugin.json: Claude Code's manifest is read (documented)")
        elif d.get("loaded") is None:
            mark("wrong", "not loaded")
        apps_said = any("apps" in r for r in reports)
        if d.get("apps") and d.get("manifestKind") == "codex":
            if apps_said:
                mark("refused", "apps (`.app.json`) said not to be applied")
            else:
                mark("silent", "apps (`.app.json`) dropped without a word")
    return worst, list(dict.fromkeys(notes))


def load(path):
    return [json.loads(line) for line in open(path) if line.strip()]


before, after = load(sys.argv[1]), load(sys.argv[2])
counts = {"before": {k: 0 for k in ORDER}, "after": {k: 0 for k in ORDER}}
rows = []
for b, a in zip(before, after):
    (cb, nb), (ca, na) = judge(b), judge(a)
    counts["before"][cb] += 1
    counts["after"][ca] += 1
    note = "; ".join(nb)
    if na != nb:
        note += " → " + ("; ".join(na) or "as intended")
    rows.append(f"| {a['kind']} `{a['path']}` | {a['repo']} | {cb} | {ca} | {note} |")
print("| artefact | repository | before | after | notes |")
print("| --- | --- | --- | --- | --- |")
print("\n".join(rows))
print()
for when in ("before", "after"):
    print(when, len(before), counts[when])
print("repositories", len({d["repo"] for d in after}))
