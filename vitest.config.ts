import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

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
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
