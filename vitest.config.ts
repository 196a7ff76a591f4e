import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/**
 * Folders whose files share their worker's module cache (`isolate: false`): their tests leave no
 * module-level state behind, and importing the SDK once per worker instead of once per file took
 * test/loop + test/tools from 14.6 s to 5.7 s wall. A folder joins once it passes that way.
 */
const SHARED = ["test/loop/**/*.test.ts", "test/tools/**/*.test.ts"];

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
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: 1 on a 2-core machine, so every file
    // waited for the one before. Much of the suite's time is waiting (child processes, servers,
    // timers): three files at a time on two cores took test/loop + test/tools from 249 s to 92 s
    // wall, and the whole suite to 1,303 s wall on a loaded machine (files' own times sum to 3,048 s).
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: { name: "isolated", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...SHARED] },
      },
      { extends: true, test: { name: "shared", include: SHARED, isolate: false } },
    ],
  },
});
