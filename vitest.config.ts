import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";
import { LongestFirst } from "./test/sequence/sequencer.ts";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// One V8 compile cache for the test workers (forked after this file runs, so they inherit it) and
// every Node process the tests start: the bin keeps its cache under HOME, and many tests give it a
// fresh temp HOME, so each such run compiled everything again (0.43 CPU-s a `ubiquity run` against
// 0.26); the workers load typescript, the AI SDK and the rest of node_modules natively. The cache
// holds V8's compiled code, checked against each module's source, never a result.
process.env.NODE_COMPILE_CACHE ??= here("./node_modules/.cache/node-compile-cache");

/**
 * Folders whose files share their worker's module cache (`isolate: false`): their tests leave no
 * module-level state behind, and importing the SDK once per worker instead of once per file took
 * test/loop + test/tools from 14.6 s to 5.7 s wall. A folder joins once it passes that way, and
 * none of its files leaves HOME changed (a module that read it once would keep a removed folder for
 * the files after it): test/permissions, parity, model and the rest took 65 CPU-s alone, 39 shared.
 * tempHome (test/helpers/temp-home.ts) sets HOME for each test and puts it back after it, and the
 * code reads os.homedir() when it needs it, never once at load: its files may join (9 did, 13.2
 * CPU-s to 8.6). Files run one at a time in a worker, so no other file sees a test's HOME.
 */
const SHARED = [
  "test/loop/**/*.test.ts",
  "test/tools/**/*.test.ts",
  // Not test/permissions/differential: the shared files run after the isolated ones, where a 30 s
  // file ran alone at the end; isolated, longest-first starts it at once.
  // Nor the three files that compute for half a minute (syntax, grammar, market prices): the shared
  // project starts once the isolated one is done, so they made the suite's tail; isolated, they
  // start first, beside the rest.
  "test/permissions/!(syntax|grammar).test.ts",
  "test/parity/**/*.test.ts",
  "test/model/!(market-prices).test.ts",
  "test/context/**/*.test.ts",
  "test/budget/**/*.test.ts",
  "test/images/**/*.test.ts",
  "test/reasoning/**/*.test.ts",
  "test/web/**/*.test.ts",
  "test/skills/**/*.test.ts",
  "test/memory/**/*.test.ts",
  "test/commands/**/*.test.ts",
  "test/harness-habits/**/*.test.ts",
  // Issue 45: 130 more files, isolated 0.5 CPU-s a file more (a fork, vitest's start, the SDK
  // imported again). Left isolated: files that leave the environment changed or call the runner's
  // main() in the test's process (a file setting and restoring HOME or a key joined since), scan /proc or the process tree (a server another file left closing would
  // count), check what is loaded (cold-start, lazy-load, optional-peers, without-sdk), use
  // OpenTelemetry's global providers (test/telemetry), and the files over ~10 s (they start first
  // in the isolated project; here they would end the suite).
  // 14 more small files joined on 2026-12-07 (compat parsing, sources, survey-fixes, disable-all-hooks;
  // security credential-variables, 05e, 05f, shell-without-bash (06s went back: it notes secrets, which
  // count for every later file of its worker, and test/loop/redact's exact list met them under load); checkpoints edges; lsp-servers;
  // acp commands, learned-secrets; testing): each sets and puts back what it changes (HOME, PATH, a
  // key) within its test or file and scans no process; ~0.5 CPU-s each (bench/suite-time.md).
  "test/kernel/!(cold-start|optional-peers).test.ts",
  "test/harness/**/*.test.ts",
  "test/live/**/*.test.ts",
  "test/structured-output/!(types).test.ts",
  "test/agents/!(worktree).test.ts",
  "test/hooks/!(handler-types|settings-hooks-entries|watch-events).test.ts",
  "test/sessions/!(concurrent-writers|crash|lock-race|microcompact-size|runner).test.ts",
  "test/sandbox/!(acceptance|bind-fd|home-under-tmp|policy|process-tree|proxy-unix-sockets|spawns).test.ts",
  "test/mcp/!(errors|everything-http|everything-stdio|mcp-json-entries|oauth|revision).test.ts",
  "test/fleet/!(attack-repos|attack|cli|cost|redis-restart|takeover).test.ts",
  "test/faults/@(call-watch|response-bounds|truncation).test.ts",
  "test/compat/@(claude-enabled-plugins|claude-settings-mcp|claude-settings-rules|codex|codex-agents-walk|codex-prompts|codex-survey-fixes|disable-all-hooks|parsing|skill-frontmatter|sources|survey-fixes).test.ts",
  "test/checkpoints/@(chat|edges|rewind|safety|subagent).test.ts",
  "test/cli/!(claude-flags|claude-switch|run-flags|slash-commands|switcher-trial|tui-terminal).test.ts",
  "test/config/@(load|schema-config|schema).test.ts",
  "test/todos/@(edit|todowrite).test.ts",
  "test/lsp/@(lsp-diagnostics|lsp-servers).test.ts",
  "test/package/@(built|entries|fix-dts).test.ts",
  "test/acp/@(commands|content|interrupted|learned-secrets).test.ts",
  "test/security/@(credential-variables|engine-attacks|env-key-leak|planted-files|redteam-2026-12-05-lsp|redteam-2026-12-05b|redteam-2026-12-05c|redteam-2026-12-05d|redteam-2026-12-05e|redteam-2026-12-05f|redteam-2026-12-06l|shell-without-bash|skills-pinned|trust-prompt|trust-store).test.ts",
  "test/sessions-postgres/!(attack).test.ts",
  "test/examples/**/*.test.ts",
  "test/testing/**/*.test.ts",
];

export default defineConfig({
  resolve: {
    alias: [
      { find: /^ubiquity$/, replacement: here("./sdk/index.ts") },
      { find: /^ubiquity\/plugin$/, replacement: here("./sdk/plugin.ts") },
      { find: /^ubiquity\/testing$/, replacement: here("./src/testing/index.ts") },
      { find: /^ubiquity\/harness$/, replacement: here("./harness/index.ts") },
      { find: /^ubiquity\/plugins\/(.*)$/, replacement: here("./plugins/$1/public.ts") },
      { find: /^ubiquity\/presets\/(.*)$/, replacement: here("./presets/$1.ts") },
    ],
  },
  test: {
    // A timeout only catches a hang; 30 s also failed tests that were merely slow on a loaded
    // machine (a README type-check took 61 s there), so a test's outcome depended on the load.
    // Tests set no shorter timeouts of their own, and the bounds inside them (a child process's
    // timeout, a wait for a line or a file) are 60-240 s: each catches a hang, never a slow run.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: "forks",
    // Three files at a time on a 2-core machine (~6 minutes in CI, against ~13 one at a time). With
    // three, 3 of 4 CI runs once failed on one load-sensitive test each (the sandbox's put-back link,
    // fleet takeover, the chat terminal's /stop); those waited on luck or a clock and now wait on
    // events (issue 45 point 5): the suite has to pass under synthetic CPU load as it does idle.
    maxWorkers: 3,
    // Longest files first, from committed durations: a clean clone has no cache to order by.
    sequence: { sequencer: LongestFirst },
    // UBIQUITY_TEST_CPU_LOG=<file>: each test file's CPU, its own and its child processes' (test/sequence/cpu-probe.ts).
    // UBIQUITY_TEST_SPAWN_LOG=<file>: the processes each test file starts, by kind (test/sequence/spawn-probe.ts).
    setupFiles: [
      ...(process.env.UBIQUITY_TEST_CPU_LOG ? [here("./test/sequence/cpu-probe.ts")] : []),
      ...(process.env.UBIQUITY_TEST_SPAWN_LOG ? [here("./test/sequence/spawn-probe.ts")] : []),
    ],
    projects: [
      {
        extends: true,
        test: {
          name: "isolated",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...SHARED],
        },
      },
      {
        extends: true,
        test: { name: "shared", include: SHARED, isolate: false },
      },
    ],
  },
});
