#!/usr/bin/env bash
# What each round's bin script (bin-s.sh, bin-t.sh) shares, sourced with ROUND set: the checkouts
# folder and the run to pick from the caller's arguments, the scripted config each project gets,
# and `project` and `ubq` (docs/guide/compat-survey.md).
set -u
WT="$(cd "$(dirname "$0")/../.." && pwd)"
CO="${1:?checkouts folder}"
ONLY="${2:-}"
NODE="$(cd "$WT" && npx node -e 'process.stdout.write(process.execPath)')"
CONFIG='import { appendFileSync } from "node:fs";
import { scriptedModel } from "ubiquity/testing";
const textOf = (m) => (typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : JSON.stringify(p))).join("\n"));
const steps = JSON.parse(process.env.UBQ_STEPS ?? "[]");
let next = 0;
export default {
  sessionDir: process.env.UBQ_SESSIONS, todoDir: process.env.UBQ_SESSIONS + "-todos", marketPricing: false, maxRetries: 0,
  model: scriptedModel(({ request }) => {
    appendFileSync(process.env.UBQ_LOG, JSON.stringify({
      system: request.prompt.filter((m) => m.role === "system").map(textOf).join("\n"),
      tools: (request.tools ?? []).map((t) => t.name),
      users: request.prompt.filter((m) => m.role === "user").map(textOf),
      last: textOf(request.prompt[request.prompt.length - 1]).slice(0, 2000),
    }) + "\n");
    return steps[next++] ?? "done";
  }),
};'

# project <name> : a fresh project folder in $P with the scripted config and its own HOME.
project() {
  P="$(mktemp -d /tmp/ubq-"$ROUND"-"$1"-XXXX)"
  printf '%s\n' "$CONFIG" > "$P/ubiquity.config.mjs"
  printf '{"name":"p","private":true,"type":"module"}\n' > "$P/package.json"
  mkdir -p "$P/node_modules" "$P/home" && ln -s "$WT" "$P/node_modules/ubiquity"
  git -C "$P" init -q
}
# ubq <name> <cwd> args… : run the bin, print exit code, stderr and the log.
ubq() {
  local name="$1" cwd="$2"; shift 2
  [ -n "$ONLY" ] && [ "$ONLY" != "$name" ] && return
  echo "===== $name: ubiquity $*"
  (cd "$cwd" && HOME="$P/home" UBQ_SESSIONS="$P/sessions" UBQ_LOG="$P/log.jsonl" UBIQUITY_TRUST=1 NO_COLOR=1 \
    timeout 120 "$NODE" "$WT/bin/ubiquity.mjs" "$@" >"$P/out" 2>"$P/err"; echo "exit $?")
  echo "--- stdout"; head -c 1500 "$P/out"; echo; echo "--- stderr"; cat "$P/err"; echo "--- log"
  mkdir -p "${LOGS:=/tmp/ubq-"$ROUND"-logs}"; [ -f "$P/log.jsonl" ] && mv "$P/log.jsonl" "$LOGS/$name.jsonl" && echo "$LOGS/$name.jsonl"
}
