#!/usr/bin/env python3
"""Render the few chezmoi templates round y runs (bin-y.sh) as chezmoi would on a fresh machine.

  python3 chezmoi-render.py <template> <target> <home>

Only what those files use: `{{ .chezmoi.homeDir }}` is the temp HOME; `{{ if .x }}A{{ else }}B{{ end }}` takes B
(the author's data is not here: the non-personal branch); `{{ output ... }}` that reads a file the fresh HOME does
not have yet gives its fallback (a `|| echo 'x'` in the command, else nothing). Anything else stops with an error.
"""
import os
import re
import sys

src, dst, home = sys.argv[1:4]
text = open(src, encoding="utf8").read()
text = text.replace("{{ .chezmoi.homeDir }}", home)
text = re.sub(r"\{\{ if \.\w+ \}\}(.*?)\{\{ else \}\}(.*?)\{\{ end \}\}", r"\2", text, flags=re.S)


def output(m):
    fallback = re.search(r"\|\| echo '([^']*)'", m.group(0))
    value = fallback.group(1) if fallback else ""
    return '"' + value + '"' if "| quote" in m.group(0) else value


text = re.sub(r"\{\{ output .*?\}\}", output, text, flags=re.S)
if "{{" in text:
    sys.exit(f"{src}: a template this script does not render: {text[text.index('{{'):][:80]}")
os.makedirs(os.path.dirname(dst), exist_ok=True)
open(dst, "w", encoding="utf8").write(text)
