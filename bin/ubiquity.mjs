#!/usr/bin/env node
import { main } from "../dist/runner/cli.mjs";

// A closed pipe (`ubiquity run … | head`) is the reader saying "enough", not a crash.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error && error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

process.exitCode = await main(process.argv.slice(2));
