#!/usr/bin/env node
import module from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";

// Node keeps the runner's compiled code between runs (about a sixth of a cold run's CPU), in the
// user's own folder rather than a shared temp folder. NODE_DISABLE_COMPILE_CACHE=1 turns it off;
// Node < 22.1 has no compile cache. Before the runner's import, so its modules are covered.
try {
  module.enableCompileCache?.(join(homedir(), ".ubiquity", "compile-cache"));
} catch {
  // an unwritable home: run without the cache
}
const { main } = await import("../dist/runner/cli.mjs");

// A closed pipe (`ubiquity run … | head`) is the reader saying "enough", not a crash.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error && error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

process.exitCode = await main(process.argv.slice(2));
