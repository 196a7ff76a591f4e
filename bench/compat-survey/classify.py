#!/usr/bin/env python3
"""
Classify survey.ts output (JSON lines) into the four outcomes of docs/guide/compat-survey.md, by the
rules written there, and print a markdown table row per artefact plus the counts.

  python3 bench/compat-survey/classify.py before.jsonl after.jsonl [runs.tsv]

runs.tsv (round s): what running a file through the bin showed, where the loaders cannot see it (a hook
script's behaviour): repository, path, before, after, note; a file's outcome is the worse of the two.
"""
import json, sys, collections

RANK = {"intended": 0, "refused": 1, "wrong": 2, "silent": 3, "n/a": -1}
AGENT_CC = ["memory", "mcpServers", "background", "initialPrompt", "effort"]
SKILL_CC = ["context", "agent", "hooks", "effort", "paths"]
# Claude Code hook events ubiquity has no moment for, besides those it names as such since round 1.
CC_EVENTS = ["MessageDisplay"]
COMMAND_CC = ["context", "agent", "hooks", "effort"]
# Settings `env` variables Claude Code reads itself (round r): the model, its endpoint, budgets, timeouts.
CLAUDE_ENV = {"ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY", "ANTHROPIC_CUSTOM_HEADERS",
              "ANTHROPIC_MODEL", "ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL",
              "ANTHROPIC_DEFAULT_SONNET_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL", "MAX_THINKING_TOKENS",
              "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_TIMEOUT_MS"}
SOURCES = {"local ./", "object github", "object url", "object git-subdir", "object local"}


def said(row, field):
    return any(f"{field} (" in r for r in row.get("reports", []))


def classify(row):
    kind, out = row["kind"], []
    def add(outcome, note):
        out.append((outcome, note))
    if row.get("missing") or row.get("threw"):
        return ("silent", "survey could not load it")
    if kind == "agent":
        if row.get("loaded") is None:
            add("refused", "no frontmatter description (Claude Code requires one too)")
        else:
            if "effort" in row.get("keys", []) and not row.get("reasoning") and "effort" not in row.get("dropped", []):
                add("silent", "`effort` dropped in silence")
            for f in AGENT_CC:
                if f in row.get("notApplied", []):
                    add("refused" if said(row, f) else "silent", f"`{f}` {'named as not applied' if said(row, f) else 'dropped in silence'}")
            if "fails" in (row.get("runsOn") or ""):
                add("wrong", f"`model: {row['model']}` names no provider: the agent fails")
            if any(r.count("(") != r.count(")") for r in row.get("badRules", [])):
                add("wrong", "`tools` entry split at the commas inside `Agent(…)`")
            lost = [m["entry"] for m in row.get("mcpServersWhole", []) if not m["kept"]]
            if lost:
                add("silent", f"`tools` {', '.join(lost)}: none of the server's tools given, without a word")
            elif row.get("mcpServersWhole"):
                add("intended", f"`tools` {', '.join(m['entry'] for m in row['mcpServersWhole'])}: the server's tools given")
    elif kind == "skill":
        if row.get("loaded") is None:
            add("wrong", "skipped for want of a description (Claude Code uses the first paragraph)")
        for f in SKILL_CC:
            if f in row.get("notApplied", []):
                add("refused" if any(f"{f} (" in r for r in row.get("reports", [])) else "silent", f"`{f}` {'named as not applied' if any(f'{f} (' in r for r in row.get('reports', [])) else 'inert in silence'}")
    elif kind == "command":
        if row.get("loaded") is None:
            add("wrong", "file name with `:` refused (Claude Code names the command after the file)")
        else:
            if "fails" in (row.get("runsOn") or ""):
                add("wrong", f"`model: {row['model']}` names no provider: the command fails")
            for f in COMMAND_CC:
                if f in row.get("notApplied", []):
                    add("refused" if said(row, f) else "silent", f"`{f}` {'named as not applied' if said(row, f) else 'dropped in silence'}")
            if ":" in row["loaded"] and "/commands/" in "/" + row["path"] and "/" in row["path"].split("/commands/")[-1]:
                add("wrong", f"named `/{row['loaded']}`; Claude Code names it after the file alone")
    elif kind in ("hooks", "settings"):
        if row.get("loaded") is None:
            add("refused", "stops the run naming the file")
        if row.get("matcherDiffs"):
            add("silent", "; ".join(f"matcher `{d.split(': ')[0]}` never matched {d.split(': ', 1)[1]}" for d in row["matcherDiffs"]))
        if any("not an object of events" in r for r in row.get("reports", [])):
            add("refused", "not Claude Code's hooks format: reported")
        if any(f'"{e}" is not one ubiquity fires' in r for e in CC_EVENTS for r in row.get("reports", [])):
            add("wrong", "a Claude Code event (MessageDisplay) reported as an unknown name")
        elif any("is not one ubiquity fires" in r for r in row.get("reports", [])):
            add("refused", "unknown event name reported")
        unsent = [n for n in row.get("notes", []) if "Notification hooks for" in n]
        if unsent:
            add("refused", "Notification hooks for a notification ubiquity never sends (idle_prompt): noted")
        elif row.get("kind") in ("hooks", "settings") and any(g.get("matcher") == "idle_prompt" for g in row.get("notificationGroups", [])):
            add("silent", "Notification hooks for idle_prompt, which ubiquity never sends, kept without a word")
        plan = [n for n in row.get("notes", []) if "never run: ubiquity has no" in n]
        if plan:
            add("refused", "hooks for Claude Code's plan-mode tools (ExitPlanMode, EnterPlanMode), which ubiquity has not: noted")
        elif row.get("planToolGroups"):
            groups = ", ".join(f"{g['event']} {g['matcher']}" for g in row["planToolGroups"])
            add("silent", f"hooks for {groups}, a tool ubiquity has not, kept without a word: they never run")
        if row.get("kind") == "settings" and row.get("badRules"):
            skipped = [r for r in row["badRules"] if any(f'permissions.allow "{r}" (not a permission rule' in x for x in row.get("reports", []))]
            if len(skipped) == len(row["badRules"]):
                add("refused", f"allow entries {', '.join(skipped[:3])}… are no rules: skipped and named, as Claude Code skips them; the rest of the file applies")
            else:
                add("refused", f"rules {', '.join(row['badRules'][:3])}… are no rules: the run stops naming the file and rule")
        events = [n for n in row.get("notes", []) if "Notification hooks for" not in n and "never run: ubiquity has no" not in n]
        if events:
            add("refused", f"{len(events)} event(s) ubiquity never fires: noted")
        own = [v for v in row.get("envVars", []) if v in CLAUDE_ENV or v.startswith("CLAUDE_CODE_")]
        unsaid = [v for v in own if not any(f"env.{v}" in r for r in row.get("reports", []))]
        if unsaid:
            add("silent", f"`env` {', '.join(unsaid)} (Claude Code reads them itself) passed to commands in silence")
        elif own:
            add("refused", f"`env` {', '.join(own)} named (with the option that does it here, where there is one)")
        if any("ignored" in r for r in row.get("reports", [])):
            add("refused", "keys ubiquity does not apply: reported")
    elif kind == "mcp":
        if row.get("loaded") is None:
            add("refused", "not JSON: stops the run naming the file")
        else:
            warnings = row.get("warnings", [])
            if row.get("disabledButStarted"):
                add("wrong", f'`"enabled": false` servers started ({", ".join(row["disabledButStarted"])})')
            if any("so it was not started" in w for w in warnings):
                add("intended", '`"enabled": false` servers not started, each said')
            if any("not one ubiquity reads" in w for w in warnings):
                add("refused", "keys ubiquity does not read: reported")
            if row.get("failed"):
                add("intended", "unset `${VAR}`: that server fails, as in Claude Code")
    elif kind == "plugin":
        if "userConfig" in row.get("keys", []) and not any("userConfig" in r for r in row.get("reports", [])):
            add("silent", "`userConfig` options dropped without a word")
        if row.get("reports"):
            add("refused", row["reports"][0].split(": ", 1)[-1][:80])
    elif kind == "marketplace":
        if "/.cursor-plugin/" in "/" + row["path"]:
            return ("n/a", "Cursor's format, not Claude Code's")
        root = (row.get("metadata") or {}).get("pluginRoot")
        # Git URL strings are sources `plugin add` takes; so is a plain name under metadata.pluginRoot
        # (since this survey: the classifier reads the file, it does not run `plugin add`).
        odd = {k for k in set(row.get("sources", {})) - SOURCES if not k.startswith("string https://")}
        if root:
            odd = {k for k in odd if not k.startswith("string ")}
        if odd:
            add("wrong", f"sources {sorted(odd)}")
    elif kind == "style":
        add("refused", "output styles are not applied (documented; a settings `outputStyle` is reported)")
    if not out:
        return ("intended", "")
    worst = max(out, key=lambda o: RANK[o[0]])[0]
    return (worst, "; ".join(n for _, n in out if n))


def load(path):
    return [json.loads(l) for l in open(path)]


def worse(x, y):
    """The worse of two (outcome, note) pairs, notes joined."""
    outcome = max(x[0], y[0], key=lambda o: RANK[o])
    return (outcome, "; ".join(n for n in (x[1], y[1]) if n))


def main(before, after, runs=None):
    counts = {"before": collections.Counter(), "after": collections.Counter()}
    rows = []
    ran = {}
    for line in open(runs) if runs else []:
        if line.strip() and not line.startswith("#"):
            repo, path, rb, ra, note = line.rstrip("\n").split("\t")
            ran[(repo, path)] = ((rb, f"run: {note}"), (ra, f"run: {note}" if ra != "intended" else "run: as intended"))
    for b, a in zip(load(before), load(after)):
        assert (b["repo"], b["path"]) == (a["repo"], a["path"])
        cb, ca = classify(b), classify(a)
        if (b["repo"], b["path"]) in ran:
            rb, ra = ran[(b["repo"], b["path"])]
            cb, ca = worse(cb, rb), worse(ca, ra)
        counts["before"][cb[0]] += 1
        counts["after"][ca[0]] += 1
        rows.append((b, cb, ca))
    print("| artefact | repository | before | after | notes |")
    print("| --- | --- | --- | --- | --- |")
    for b, cb, ca in rows:
        note = ca[1] if ca[1] == cb[1] else f"{cb[1] or '—'} → {ca[1] or 'as intended'}"
        note = note.replace("|", "\\|")  # a pipe inside a cell (a matcher) must not split it
        print(f"| {b['kind']} `{b['path']}` | {b['repo']} | {cb[0]} | {ca[0]} | {note} |")
    print()
    for when in ("before", "after"):
        print(when, dict(counts[when]))


if __name__ == "__main__":
    main(*sys.argv[1:4])
