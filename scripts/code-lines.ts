/**
 * The code lines of a text: neither blank nor comments (strings are kept: they are code). The kernel
 * cap (test/kernel/kernel-size.test.ts) and the function length limit (scripts/long-functions.ts)
 * count these, on code formatted by Biome, so a comment that gives a reason never costs a line.
 */
export function codeLines(text: string): string[] {
  const out: string[] = [];
  let inBlock = false;
  for (const raw of text.split("\n")) {
    let line = raw.trim();
    if (inBlock) {
      const end = line.indexOf("*/");
      if (end < 0) continue;
      inBlock = false;
      line = line.slice(end + 2).trim();
    }
    if (line.startsWith("/*")) {
      const end = line.indexOf("*/", 2);
      if (end < 0) {
        inBlock = true;
        continue;
      }
      line = line.slice(end + 2).trim();
    }
    if (line === "" || line.startsWith("//")) continue;
    out.push(line.replace(/\s\/\/\s.*$/, ""));
  }
  return out;
}
