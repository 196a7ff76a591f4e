#!/usr/bin/env node
import { readFileSync } from "node:fs";
import module from "node:module";
import { homedir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import { setFlagsFromString } from "node:v8";

// A relative PATH entry (`./bin`, `.`, `node_modules/.bin`) is looked up in the folder a program
// starts in: git for a checkpoint, started in the project, would run a `bin/git` the repository
// ships or a sandboxed command left there, outside the sandbox. Nothing the runner starts gets
// one (the environment of commands and servers never had one either). Red team i, I4.
if (process.env.PATH !== undefined)
  process.env.PATH = process.env.PATH.split(delimiter)
    .filter((dir) => dir !== "" && isAbsolute(dir))
    .join(delimiter);

// V8's optimizing compilers (Maglev, TurboFan) stay off until the process has used half a second
// of CPU. A cold run (about a quarter of a second) spends their work on code it leaves before the
// work pays back, mostly Node's own path functions hot from module loading, and their first use
// costs ~8 MiB of peak RSS (bench/lean-profile.md has the figures). A longer session gets them
// back, checked on an unref'd timer every 200 ms (an idle chat is woken 5 times a second until
// then). A tiering or JIT flag of the user's own wins, and so does a compile cache of the user's
// own (NODE_COMPILE_CACHE, which their other Node processes share): V8 rejects code cached under
// other flags, so each run recompiled the modules it shares with those processes (zod, ai, an app
// importing ubiquity) and overwrote their entries, and they ours: ~0.1 CPU-s a start on each side,
// more than the switch saves. The test suite shares one cache among its processes this way.
const ownFlags = `${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`;
const sharedCompileCache = Boolean(process.env.NODE_COMPILE_CACHE) && process.env.NODE_DISABLE_COMPILE_CACHE !== "1";
if (!sharedCompileCache && !/--(no-)?(maglev|turbofan|opt|jitless|sparkplug)\b/.test(ownFlags)) {
  setFlagsFromString("--no-maglev");
  setFlagsFromString("--no-turbofan");
  const tierUp = setInterval(() => {
    const { user, system } = process.cpuUsage();
    if (user + system < 500_000) return;
    setFlagsFromString("--maglev");
    setFlagsFromString("--turbofan");
    clearInterval(tierUp);
  }, 200);
  tierUp.unref();
}

// Node keeps the runner's compiled code between runs (about a sixth of a cold run's CPU), in the
// user's own folder rather than a shared temp folder. NODE_DISABLE_COMPILE_CACHE=1 turns it off;
// Node < 22.1 has no compile cache. Before the runner's import, so its modules are covered.
try {
  module.enableCompileCache?.(join(homedir(), ".ubiquity", "compile-cache"));
} catch {
  // an unwritable home: run without the cache
}

// `ubiquity --version` (a CI step's first line, an editor's probe) is answered from the package's
// manifest without loading the runner, whose modules cost ~0.13 CPU-s the answer never needs.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`${manifest.version}\n`);
} else await runner();

async function runner() {
  const { main } = await import("../dist/runner/cli.mjs");

  // V8 doubles the young generation whenever as much has survived it since its last growth as it
  // holds, up to 32 MiB semi-spaces (Node 24): over a long run it grew 16 -> 32 -> 64 MiB and the
  // peak RSS with it (~30 MB from turn 8 to turn 50 of bench/peers' task) while the live heap
  // grew ~2 MB. Loading the runner has grown it to its working size (8 MiB semi-spaces); it stays
  // there. Capped from the start instead, the startup's scavenges cost a cold run ~10% more CPU.
  // bench/lean-profile.md has the figures. A semi-space flag of the user's own (NODE_OPTIONS) wins.
  if (!/semi-space/.test(ownFlags)) setFlagsFromString("--semi-space-growth-factor=1");

  // A closed pipe (`ubiquity run … | head`) is the reader saying "enough", not a crash.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error) => {
      if (error && error.code === "EPIPE") process.exit(process.exitCode ?? 0);
      throw error;
    });
  }

  process.exitCode = await main(argv);
}
