/** The rule an approval's "always" adds, in words (the terminal's approvals and the ACP agent's). */

/**
 * What "always" will allow, in words: `Bash(npm test)` is exactly this command, `Bash(git
 * status:*)` that command with any arguments, `Write(./src/a.ts)` this one path, a bare tool
 * name every call of it (offered only for a tool that declares nothing narrower to match).
 */
export function describeRule(rule: string, input: Record<string, unknown>): string {
  const match = /^([^(]+)\(([\s\S]*)\)$/.exec(rule);
  if (!match) return `${rule} (every ${rule} call)`;
  const content = match[2]!;
  if (content.endsWith(":*") && !content.endsWith("\\:*"))
    return `${rule} (${content.slice(0, -2)} with any arguments)`;
  if (/(^|[^\\])\*/.test(content)) return `${rule} (anything matching the pattern)`;
  if (typeof input.command === "string") return `${rule} (exactly this command)`;
  if (["file_path", "notebook_path", "path"].some((key) => typeof input[key] === "string"))
    return `${rule} (only this path)`;
  return `${rule} (exactly this)`;
}
