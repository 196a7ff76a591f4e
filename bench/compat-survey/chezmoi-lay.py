#!/usr/bin/env python3
"""Lay out a chezmoi source folder as chezmoi would write it, for round x's runs (bin-x.sh).

  python3 chezmoi-lay.py <source-folder> <target-folder>

Names: `dot_` is a leading dot; `private_`, `readonly_`, `executable_`, `exact_`, `empty_`, `create_` are
attributes (dropped; `executable_` sets the mode); `symlink_<name>` is a link whose target is the file's
text. A `.tmpl` file without a `{{` is copied as is; one with a template is not rendered (chezmoi's Go
templates need the author's data) and is listed on stderr, as are `modify_`/`run_` scripts and `.chezmoi*`
files.
"""
import os
import sys

ATTRS = ("private_", "readonly_", "executable_", "exact_", "empty_", "create_", "encrypted_")


def target_name(part):
    flags = set()
    changed = True
    while changed:
        changed = False
        for a in ATTRS + ("symlink_",):
            if part.startswith(a):
                flags.add(a)
                part = part[len(a):]
                changed = True
    if part.startswith("dot_"):
        part = "." + part[4:]
    return part, flags


def main(src, dst):
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        out_dir = dst if rel == "." else os.path.join(dst, *[target_name(p)[0] for p in rel.split(os.sep)])
        for f in files:
            path = os.path.join(root, f)
            if f.startswith((".chezmoi", "modify_", "run_")):
                print(f"not laid out (chezmoi's own): {os.path.relpath(path, src)}", file=sys.stderr)
                continue
            name, flags = target_name(f)
            text = open(path, "rb").read()
            if name.endswith(".tmpl"):
                if b"{{" in text:
                    print(f"not laid out (template): {os.path.relpath(path, src)}", file=sys.stderr)
                    continue
                name = name[: -len(".tmpl")]
            os.makedirs(out_dir, exist_ok=True)
            out = os.path.join(out_dir, name)
            if "symlink_" in flags:
                os.symlink(text.decode().strip(), out)
                continue
            with open(out, "wb") as fh:
                fh.write(text)
            if "executable_" in flags or os.access(path, os.X_OK):
                os.chmod(out, 0o755)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
