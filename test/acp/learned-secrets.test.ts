/**
 * What goes to an ACP client is masked with every secret the run knows, including those a plugin
 * learns while setting the run up: a Codex `[model_providers.<id>]` whose `env_key` (or
 * `env_http_headers`) names a variable that does not look like a credential. Before, the ACP
 * session read the run's secrets once, from the runner's options, before the settings plugin had
 * read `~/.codex/config.toml`: the provider's key went to the editor in clear when the model
 * repeated it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProviderServer } from "../../src/testing/servers/server";
import { removeTempProjects, requireDist, tempProject } from "../helpers/project";
import { messageText, startAgent } from "./helpers";

afterAll(removeTempProjects);
beforeAll(requireDist);

const KEY = "team-proxy-value-0123456789abcdef";
const HEADER = "team-header-value-fedcba9876543210";

/** A project, and a HOME whose Codex config sends requests to `baseURL` with TEAM_PROXY's key and TEAM_HEADER's header. */
function codexProject(baseURL: string) {
  const dir = tempProject({
    "ubiquity.config.mjs": "export default { persistSession: false, marketPricing: false, maxRetries: 0 };\n",
  });
  const home = join(dir, "home");
  mkdirSync(join(home, ".codex"), { recursive: true });
  writeFileSync(
    join(home, ".codex", "config.toml"),
    `model = "gpt-5-mini"\nmodel_provider = "proxy"\n\n[model_providers.proxy]\nbase_url = "${baseURL}"\nenv_key = "TEAM_PROXY"\nenv_http_headers = { "X-Team" = "TEAM_HEADER" }\n`,
  );
  return { dir, home };
}

const ENV = (home: string) => ({ HOME: home, UBIQUITY_MODEL: "", TEAM_PROXY: KEY, TEAM_HEADER: HEADER });

describe("ubiquity acp --compat codex: a provider's key under a name that is not a credential's", () => {
  it("is masked in the session's updates when the model repeats it", async () => {
    const server = await startProviderServer([{ text: `the key is ${KEY} and the header ${HEADER} indeed` }]);
    const { dir, home } = codexProject(server.baseURL);
    const proc = startAgent({ dir, sessions: join(dir, "sessions") }, ["--compat", "codex"], ENV(home));
    try {
      await proc.initialized;
      const { sessionId } = await proc.agent.request("session/new", { cwd: dir, mcpServers: [] });
      const answer = await proc.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
      expect(answer.stopReason).toBe("end_turn");
      // The provider got the key: the run did use the user's provider.
      expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(server.requests[0]!.headers["x-team"]).toBe(HEADER);
      const text = messageText(proc, sessionId);
      expect(text).toContain("the key is [redacted] and the header [redacted] indeed");
      expect(proc.frames.join("\n")).not.toContain(KEY);
      expect(proc.frames.join("\n")).not.toContain(HEADER);
    } finally {
      await proc.close();
      await server.close();
    }
  });

  it("is masked in the error the editor gets when the provider's refusal echoes it", async () => {
    const server = await startProviderServer([
      { status: 401, message: `key ${KEY} with header ${HEADER} is revoked` },
      { status: 401, message: `key ${KEY} with header ${HEADER} is revoked` },
      { status: 401, message: `key ${KEY} with header ${HEADER} is revoked` },
    ]);
    const { dir, home } = codexProject(server.baseURL);
    const proc = startAgent({ dir, sessions: join(dir, "sessions") }, ["--compat", "codex"], ENV(home));
    try {
      await proc.initialized;
      const { sessionId } = await proc.agent.request("session/new", { cwd: dir, mcpServers: [] });
      const outcome = await proc.agent
        .request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] })
        .then(
          (answer) => JSON.stringify(answer),
          (error: unknown) => JSON.stringify(error, Object.getOwnPropertyNames(error)),
        );
      expect(server.requests.length).toBeGreaterThan(0);
      const all = `${outcome}\n${proc.frames.join("\n")}`;
      expect(all).toMatch(/revoked/);
      expect(all).not.toContain(KEY);
      expect(all).not.toContain(HEADER);
    } finally {
      await proc.close();
      await server.close();
    }
  });
});
