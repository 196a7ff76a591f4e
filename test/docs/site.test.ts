/**
 * The docs site: `npm run docs:build` builds it (offline: the generated reference, then
 * VitePress), every internal link and anchor of the built pages resolves, and the home page and a
 * guide page render in headless Chromium (screenshots saved in the test's temp folder, checked to
 * be non-trivial). That every complete ```ts block of its pages type-checks against the package is
 * readme.test.ts's check: it type-checks README's blocks and the site's (`siteMarkdown()`) in one
 * program with the same options. The blocks are modules and README's declare nothing global, so
 * each site block checks there exactly as alone; checking them here again cost ~7 CPU-s.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/project";
import { removePackedDirs, tempDir } from "../helpers/packed";
import { chromiumPath, decodePng, launchChromium } from "./chromium";

const work = tempDir("ubq-site-");
const out = join(work, "site");

beforeAll(async () => {
  const build = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      "npm",
      ["run", "docs:build", "--", "--outDir", out],
      { cwd: repoRoot, timeout: 280_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
  if (build.code !== 0) throw new Error(`npm run docs:build failed:\n${build.output}`);
}, 300_000);
afterAll(removePackedDirs);

/** Every file under `dir`. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) =>
    statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)],
  );
}

/** The built file a site path names (clean URLs: /guide/runner is guide/runner.html). */
function fileFor(path: string): string | undefined {
  const clean = decodeURIComponent(path).replace(/^\//, "");
  for (const candidate of [clean, `${clean}.html`, join(clean, "index.html")]) {
    const file = join(out, candidate);
    if (existsSync(file) && statSync(file).isFile()) return file;
  }
  return undefined;
}

describe("the docs site", () => {
  it("builds the pages of every section", () => {
    for (const page of [
      "index.html",
      "getting-started.html",
      "testing.html",
      "guide/permissions.html",
      "guide/mcp.html",
      "guide/web-tools.html",
      "guide/performance.html",
      "plugins.html",
      "plugins/local-development.html",
      "reference/options.html",
      "reference/cli.html",
      "security.html",
      "coming-from-claude-code.html",
    ]) {
      expect(existsSync(join(out, page)), page).toBe(true);
    }
    // The reference is generated from the code: an option and a hook the code declares are on it.
    expect(readFileSync(join(out, "reference", "options.html"), "utf8")).toContain("permissionMode");
    expect(readFileSync(join(out, "reference", "hooks.html"), "utf8")).toContain("PreToolUse");
  });

  it("has no broken internal link or anchor", () => {
    const pages = walk(out).filter((f) => f.endsWith(".html"));
    const ids = new Map<string, Set<string>>();
    const idsOf = (file: string) => {
      let set = ids.get(file);
      if (!set)
        ids.set(file, (set = new Set([...readFileSync(file, "utf8").matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!))));
      return set;
    };
    const broken: string[] = [];
    for (const page of pages) {
      const html = readFileSync(page, "utf8");
      for (const [, href] of html.matchAll(/<a [^>]*href="([^"]+)"/g)) {
        if (/^(https?:|mailto:)/.test(href!)) continue;
        const [path, anchor] = href!.split("#") as [string, string | undefined];
        const base = `/${relative(out, page)}`.replace(/[^/]*$/, "");
        const target = path === "" ? page : fileFor(path.startsWith("/") ? path : join(base, path));
        if (!target) broken.push(`${relative(out, page)} → ${href}`);
        else if (anchor && extname(target) === ".html" && !idsOf(target).has(decodeURIComponent(anchor)))
          broken.push(`${relative(out, page)} → ${href} (no such anchor)`);
      }
    }
    expect(broken).toEqual([]);
  });

  describe("renders in headless Chromium", () => {
    let server: Server;
    let base: string;
    beforeAll(async () => {
      const types: Record<string, string> = {
        ".html": "text/html",
        ".js": "text/javascript",
        ".css": "text/css",
        ".svg": "image/svg+xml",
        ".woff2": "font/woff2",
        ".json": "application/json",
      };
      server = createServer((req, res) => {
        const file = fileFor(new URL(req.url ?? "/", "http://x").pathname) ?? join(out, "404.html");
        res.writeHead(file.endsWith("404.html") ? 404 : 200, {
          "content-type": types[extname(file)] ?? "application/octet-stream",
        });
        res.end(readFileSync(file));
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it("the home page and a guide page", async () => {
      const binary = chromiumPath();
      if (!binary)
        throw new Error(
          "Chromium is required for the screenshot test: apt-get install -y chromium (CI's .ci/run installs it)",
        );
      const browser = await launchChromium(binary);
      try {
        for (const [name, path] of [
          ["home", "/"],
          ["guide-permissions", "/guide/permissions"],
        ] as const) {
          const png = await browser.screenshot(`${base}${path}`);
          const file = join(work, `${name}.png`);
          writeFileSync(file, png);
          expect(png.length, file).toBeGreaterThan(10_000);
          const { width, height, pixels } = decodePng(png);
          expect([width, height]).toEqual([1280, 800]);
          // A rendered page: a good share of non-white pixels (text, the nav, the hero), not a blank screen.
          let dark = 0;
          for (let i = 0; i < pixels.length; i += 4) if (pixels[i]! + pixels[i + 1]! + pixels[i + 2]! < 600) dark++;
          expect(dark / (width * height), `${file}: share of non-white pixels`).toBeGreaterThan(0.005);
        }
      } finally {
        await browser.close();
      }
    }, 120_000);
  });
});
