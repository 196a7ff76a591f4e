/**
 * Matching rule content against a command (or any tool's rule content string):
 * - `git:*`        prefix: `git` itself, or anything starting `git ` (a word boundary: not `gitk`)
 * - `git push *`   wildcard: `*` is any run of characters, `\*` a literal star; a trailing ` *` is optional when it is the only wildcard
 * - `git status`   exact
 * Runs of whitespace count as one space on both sides.
 */

/** A compiled content matcher. */
export interface ContentMatcher {
  kind: "prefix" | "wildcard" | "exact";
  /**
   * Does `text` match? `open` means more arguments follow at run time (xargs): only a rule
   * that accepts any further arguments can match it.
   */
  test(text: string, open?: boolean): boolean;
}

// Stands for "unknown arguments follow": no rule text contains it, so only a `*` absorbs it.
const UNKNOWN_TAIL = " \u{10FFFF}";

// Most text is already squashed (single spaces between words): test for that before rebuilding it.
const squash = (s: string) => (/[^\S ]| {2}|^ | $/.test(s) ? s.replace(/\s+/g, " ").trim() : s);

/** Compile rule content. `normalize` re-renders literal command text (quotes removed) when it can. */
export function compileContent(content: string, normalize: (text: string) => string = squash): ContentMatcher {
  if (content.endsWith(":*") && !content.endsWith("\\:*")) {
    const prefix = normalize(content.slice(0, -2));
    return {
      kind: "prefix",
      test: (text, open) => {
        const t = squash(text) + (open ? UNKNOWN_TAIL : "");
        return t === prefix || t.startsWith(`${prefix} `);
      },
    };
  }
  if (/(^|[^\\])\*/.test(content)) {
    const regex = wildcardRegex(squash(content));
    return { kind: "wildcard", test: (text, open) => regex.test(squash(text) + (open ? UNKNOWN_TAIL : "")) };
  }
  // `\*` is a literal star: bash reads it the same way, so a parsed rule renders it like a command does.
  const rendered = normalize(content);
  const exact = rendered === squash(content) ? squash(content.replace(/\\\*/g, "*")) : rendered;
  return { kind: "exact", test: (text, open) => !open && squash(text) === exact };
}

function wildcardRegex(pattern: string): RegExp {
  let body = pattern;
  let optionalTail = false;
  // A trailing ` *` is optional only when it is the rule's one wildcard: `git push *` also
  // matches plain `git push`, but `* run *` does not match `npm run` (as in the original).
  if (body.endsWith(" *") && !body.endsWith("\\ *") && !/(^|[^\\])\*/.test(body.slice(0, -2))) {
    body = body.slice(0, -2);
    optionalTail = true;
  }
  let source = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\" && body[i + 1] === "*") {
      source += "\\*";
      i++;
    } else if (c === "*") {
      source += "[\\s\\S]*";
    } else {
      source += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    }
  }
  return new RegExp(`^${source}${optionalTail ? "(?: [\\s\\S]*)?" : ""}$`, "u");
}
