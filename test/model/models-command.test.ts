/** `ubiquity models`: providers, their packages (installed or not), and credential variables. */
import { afterEach, expect, it, vi } from "vitest";
import { main, type CliIO } from "../../runner/cli";
import { PROVIDER_NAMES } from "../../plugins/model/index";

function io(): CliIO & { out: string; err: string } {
  const sink = {
    out: "",
    err: "",
    stdout: (t: string) => void (sink.out += t),
    stderr: (t: string) => void (sink.err += t),
  };
  return sink;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

it("lists every provider with its package, install status and credential variables", async () => {
  vi.stubEnv("GROQ_API_KEY", "gsk-value-that-must-not-print");
  const out = io();
  expect(await main(["models"], out)).toBe(0);
  for (const name of PROVIDER_NAMES) expect(out.out).toMatch(new RegExp(`^${name}\\s`, "m"));
  expect(PROVIDER_NAMES).toHaveLength(24);
  expect(out.out).toMatch(/^groq\s+@ai-sdk\/groq\s+dependency\s+installed\s+GROQ_API_KEY\*/m);
  expect(out.out).toMatch(/^anthropic\s+@ai-sdk\/anthropic\s+optional peer\s+installed\s+ANTHROPIC_API_KEY/m);
  expect(out.out).not.toContain("gsk-value-that-must-not-print");
});

it("prints JSON with --json", async () => {
  const out = io();
  expect(await main(["models", "--json"], out)).toBe(0);
  const rows = JSON.parse(out.out) as {
    provider: string;
    installed: boolean;
    install: string;
    env: { name: string }[];
  }[];
  expect(rows.find((r) => r.provider === "bedrock")).toMatchObject({
    installed: true,
    install: "npm i @ai-sdk/amazon-bedrock@5",
  });
  expect(rows.find((r) => r.provider === "ollama")?.env.map((e) => e.name)).toEqual(["OLLAMA_BASE_URL"]);
});
