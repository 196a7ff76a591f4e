/**
 * Which variables are credentials, the environment built from them, and the secrets redaction
 * takes from the environment. The provider table is the list of keys users actually hold, so
 * every credential variable in it must be caught by name.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { credentialValues, isCredentialName, redactingLogger, urlPasswords, urlQueryValues } from "../../src/index";
import { isCredentialVariable, isScrubbedVariable, redactText, secretsOf, buildSubprocessEnv } from "ubiquity/plugin";
import { PROVIDERS, type ProviderSpec } from "../../plugins/model/providers";

// Provider-table variables that locate a provider rather than authenticate to it.
const LOCATORS = /_(REGION|PROJECT|LOCATION|RESOURCE_NAME|BASE_URL)$/;

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("credential variables", () => {
  it("every provider-table variable is a credential by name or only locates the provider", () => {
    // A headers variable (ANTHROPIC_CUSTOM_HEADERS) is neither: it is `Name: Value` lines, and each
    // value is registered as a secret when the model plugin reads it (claude-parity-3 checks the
    // masking), so a document's harmless parts stay readable, as red team s's S10 wants of JSON ones.
    const headers = new Set(
      (Object.values(PROVIDERS) as ProviderSpec[]).flatMap((spec) => (spec.headersEnv ? [spec.headersEnv] : [])),
    );
    const names = Object.values(PROVIDERS)
      .flatMap((spec) => [...spec.env])
      .filter((n) => !headers.has(n));
    const credentials = names.filter((n) => !LOCATORS.test(n));
    expect(credentials.length).toBeGreaterThan(25);
    expect(credentials.filter((n) => !isCredentialName(n))).toEqual([]);
    // The locators are not scrubbed: AWS_REGION and OLLAMA_BASE_URL are no secret.
    expect(names.filter((n) => LOCATORS.test(n) && isCredentialName(n))).toEqual([]);
  });

  it.each([
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_ACCESS_KEY_ID",
    "AWS_BEARER_TOKEN_BEDROCK",
    "GOOGLE_GENERATIVE_AI_API_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AZURE_API_KEY",
    "AZURE_CLIENT_SECRET",
    "GROQ_API_KEY",
    "MISTRAL_API_KEY",
    "XAI_API_KEY",
    "OPENROUTER_API_KEY",
    "AI_GATEWAY_API_KEY",
    "VERCEL_OIDC_TOKEN",
    "GITHUB_TOKEN",
    "NPM_TOKEN",
    "STRIPE_KEY",
    "MY_SERVICE_SECRET",
    "DB_PASSWORD",
    "PGPASSWORD",
    "MYSQL_PWD",
    "SIGNING_PRIVATE_KEY",
    "GPG_PASSPHRASE",
    "npm_config__auth",
    "npm_config_//registry.npmjs.org/:_authToken",
    "openai_api_key",
  ])("%s is a credential", (name) => {
    expect(isCredentialName(name)).toBe(true);
    expect(isScrubbedVariable(name, "x")).toBe(true);
  });

  it.each([
    "PATH",
    "HOME",
    "MAX_TOKENS",
    "TOKENIZERS_PARALLELISM",
    "SSH_AUTH_SOCK",
    "AWS_REGION",
    "OPENAI_BASE_URL",
    "KEYBOARD",
    "MONKEY",
    "SECRETS_DIR",
  ])("%s is not a credential (redaction leaves its value alone)", (name) => {
    expect(isCredentialName(name)).toBe(false);
  });

  // The subprocess environment is an allow-list: not being a credential is not enough to pass.
  it.each([
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TERM",
    "TMPDIR",
    "TZ",
    "SSL_CERT_FILE",
    "NODE_EXTRA_CA_CERTS",
    "HTTPS_PROXY",
    "no_proxy",
    "XDG_CONFIG_HOME",
  ])("%s passes to subprocesses", (name) => expect(isScrubbedVariable(name, "/some/value")).toBe(false));
  it.each([
    "SENTRY_DSN",
    "DB_PASS",
    "SLACK_WEBHOOK_URL",
    "GH_PAT",
    "MAX_TOKENS",
    "SSH_AUTH_SOCK",
    "AWS_REGION",
    "DISPLAY",
    "XDG_RUNTIME_DIR",
    "NODE_OPTIONS",
    "npm_config_registry",
    "LC_",
    "MONKEY",
  ])("%s does not pass to subprocesses (off the allow-list)", (name) =>
    expect(isScrubbedVariable(name, "/some/value")).toBe(true),
  );
  it("a proxy URL with a password does not pass; one without does", () => {
    expect(isScrubbedVariable("HTTPS_PROXY", "http://me:hunter22@proxy:3128")).toBe(true);
    expect(isScrubbedVariable("HTTPS_PROXY", "http://proxy:3128")).toBe(false);
  });

  it("a URL value with a password is a credential whatever its name; one without is not", () => {
    expect(isCredentialVariable("DATABASE_URL", "postgres://app:pw-SECRET123@db:5432/x")).toBe(true);
    expect(isCredentialVariable("HTTPS_PROXY", "http://me:hunter22@proxy:3128")).toBe(true);
    expect(isCredentialVariable("REDIS_URL", "redis://:only-password@cache:6379")).toBe(true);
    expect(isCredentialVariable("OPENAI_BASE_URL", "https://api.example.com/v1")).toBe(false);
    expect(isCredentialVariable("GIT_URL", "ssh://git@github.com/o/r")).toBe(false);
    expect(urlPasswords("a https://u:p%40ss-word@h/ b")).toEqual(["p%40ss-word", "p@ss-word"]);
  });

  it("UBIQUITY_* variables are scrubbed from subprocesses but are not secrets to redact", () => {
    expect(isScrubbedVariable("UBIQUITY_MODEL", "openai:gpt-5")).toBe(true);
    expect(isCredentialVariable("UBIQUITY_MODEL", "openai:gpt-5")).toBe(false);
    expect(credentialValues({ UBIQUITY_MODEL: "openai:gpt-5" })).toEqual([]);
  });
});

describe("a long run of letters and digits in a value (a base64 blob)", () => {
  // The URL patterns tried such a run from each position to its end: quadratic, ~0.4 s for 16 KB,
  // hours for a megabyte. With the scheme bounded it is read in one pass (a megabyte in about a
  // second); the test's own limit is far above that, and far below what the old patterns took.
  it("is read once: a megabyte of it is searched for URL passwords and query values without stalling", () => {
    const blob = `token=${"Zm9vYmFy".repeat(131_072)}`;
    expect(urlPasswords(blob)).toEqual([]);
    expect(urlQueryValues(blob)).toEqual([]);
    expect(urlQueryValues(`${blob} https://h/x?sig=abcdef123 ${blob}`)).toEqual(["abcdef123"]);
  }, 120_000);
});

describe("buildSubprocessEnv()", () => {
  const parent = {
    PATH: "/usr/bin",
    HOME: "/home/u",
    SENTRY_DSN: "https://key@o1.ingest.sentry.io/1",
    GH_PAT: "github_pat_SECRET123",
    OPENAI_API_KEY: "sk-test-SECRET123",
    AWS_SECRET_ACCESS_KEY: "aws-SECRET123",
    GITHUB_TOKEN: "ghp-SECRET123",
    DATABASE_URL: "postgres://app:pw-SECRET123@db/x",
    UBIQUITY_MODEL: "openai:gpt-5",
    UNSET: undefined,
  };

  it("keeps only allow-listed variables by default: credentials, UBIQUITY_* and anything unnamed stay behind", () => {
    expect(buildSubprocessEnv({}, { parent })).toEqual({ PATH: "/usr/bin", HOME: "/home/u" });
    expect(buildSubprocessEnv({ subprocessEnv: "scrubbed" }, { parent })).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/u",
    });
  });

  it("`env` adds variables, wins over the parent and is never scrubbed; `add` layers come last", () => {
    const env = buildSubprocessEnv(
      { env: { GITHUB_TOKEN: "listed-by-user", PATH: "/opt/bin" } },
      { parent, add: [{ EXTRA: "1" }, undefined, { PATH: "/last" }] },
    );
    expect(env).toEqual({ PATH: "/last", HOME: "/home/u", GITHUB_TOKEN: "listed-by-user", EXTRA: "1" });
  });

  it('"inherit" passes the parent as it is, plus `env`', () => {
    const { UNSET: _u, ...defined } = parent;
    expect(buildSubprocessEnv({ subprocessEnv: "inherit", env: { A: "b" } }, { parent })).toEqual({
      ...defined,
      A: "b",
    });
  });

  it("drops empty and relative PATH entries, whoever set them (parent, `env`, `add`)", () => {
    const relative = { PATH: ".:/usr/bin::node_modules/.bin:bin:/bin:./x" };
    expect(buildSubprocessEnv({}, { parent: relative }).PATH).toBe("/usr/bin:/bin");
    expect(buildSubprocessEnv({ subprocessEnv: "inherit" }, { parent: relative }).PATH).toBe("/usr/bin:/bin");
    expect(buildSubprocessEnv({ env: { PATH: "bin:/opt/bin" } }, { parent: {} }).PATH).toBe("/opt/bin");
    expect(buildSubprocessEnv({}, { parent: {}, add: [{ PATH: "/a:." }] }).PATH).toBe("/a");
  });

  it('`inherit: false` (stdio MCP servers) keeps the allow-list even under "inherit"', () => {
    expect(buildSubprocessEnv({ subprocessEnv: "inherit" }, { parent, inherit: false })).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/u",
    });
  });

  it("reads process.env when no parent is given", () => {
    vi.stubEnv("UBQ_SECURITY_TEST_KEY", "sk-test-SECRET123");
    vi.stubEnv("UBQ_SECURITY_TEST_PLAIN", "plain");
    const env = buildSubprocessEnv({});
    expect(env.UBQ_SECURITY_TEST_KEY).toBeUndefined();
    expect(env.UBQ_SECURITY_TEST_PLAIN).toBeUndefined(); // off the allow-list
    expect(buildSubprocessEnv({ subprocessEnv: "inherit" }).UBQ_SECURITY_TEST_PLAIN).toBe("plain");
  });
});

describe("secrets from the environment", () => {
  it("secretsOf takes credential values and URL passwords from the environment, longest first, short values never", () => {
    const env = {
      OPENAI_API_KEY: "sk-test-SECRET123",
      DATABASE_URL: "postgres://app:pw-SECRET123@db/x",
      SOME_TOKEN: "true",
      UBIQUITY_MODEL: "openai:gpt-5",
      PATH: "/usr/bin",
    };
    // Secrets learned at run time (noteSecret) count in every later call of the process: an earlier
    // file of this worker's may have learned some, so only what `env` adds is compared.
    const learned = new Set(secretsOf(undefined, {}));
    expect(secretsOf(undefined, env).filter((s) => !learned.has(s))).toEqual(["sk-test-SECRET123", "pw-SECRET123"]);
  });

  it("secretsOf takes credentials from `env`, MCP server configs and URLs in provider settings", () => {
    // Secrets learned at run time count in every later call of the process (see above): only what the options add is compared.
    const learned = new Set(secretsOf(undefined, {}));
    const secrets = secretsOf(
      {
        env: { GITHUB_TOKEN: "ghp-listed-123456", PLAIN: "not-a-secret" },
        providerSettings: { baseURL: "https://user:proxy-pass-99@gw.example/v1" },
        mcpServers: {
          gh: { command: "gh-mcp", env: { GH_TOKEN: "gh-server-token-1" } },
          remote: { type: "http", url: "https://x:url-pass-77@mcp.example/", headers: { "x-anything": "hdr-value-5" } },
        },
      },
      {},
    );
    expect(new Set(secrets.filter((s) => !learned.has(s)))).toEqual(
      new Set(["ghp-listed-123456", "proxy-pass-99", "gh-server-token-1", "url-pass-77", "hdr-value-5"]),
    );
  });

  it("a redacting logger masks strings and printed errors that carry a secret, and leaves others untouched", () => {
    const lines: unknown[][] = [];
    const sink = { debug: (...a: unknown[]) => lines.push(a), info: () => {}, warn: () => {}, error: () => {} };
    const logger = redactingLogger(sink, () => ["sk-test-SECRET123"]);
    const error = Object.assign(new Error("HTTP 401"), { responseBody: '{"error":"bad key sk-test-SECRET123"}' });
    const plain = { n: 1 };
    logger.debug("key sk-test-SECRET123 failed:", error, plain, 7);
    expect(lines[0]![0]).toBe("key [redacted] failed:");
    expect(String(lines[0]![1])).toContain("HTTP 401");
    expect(String(lines[0]![1])).toContain("bad key [redacted]");
    expect(String(lines[0]![1])).not.toContain("SECRET123");
    expect(lines[0]![2]).toBe(plain);
    expect(lines[0]![3]).toBe(7);
    expect(redactText("a sk-test-SECRET123 b", secretsOf(undefined, { OPENAI_API_KEY: "sk-test-SECRET123" }))).toBe(
      "a [redacted] b",
    );
  });
});
