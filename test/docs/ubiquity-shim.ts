/**
 * What a documentation block imports as `ubiquity`: the real package entry, with `summon()`
 * watched so that a block fails when a run it started ends in an error result, or when it calls
 * `summon()` without iterating it (nothing would run: the generator is lazy).
 */
import { summon as realSummon } from "../../sdk/index";

export * from "../../sdk/index";

const problems: string[] = [];
let pending = 0;

/** `summon()`, watched; its controls (`interrupt()`, `backgroundTasks()`, …) are the real ones. */
export function summon(...args: Parameters<typeof realSummon>): ReturnType<typeof realSummon> {
  const inner = realSummon(...args);
  pending++;
  const watched = (async function* () {
    pending--;
    for await (const message of inner) {
      if (message.type === "result" && message.isError)
        problems.push(`summon(${JSON.stringify(args[0])}) ended in an error: ${message.result}`);
      yield message;
    }
  })();
  const controls = Object.fromEntries(
    Object.entries(inner).filter(
      ([key, value]) => typeof value === "function" && !["next", "return", "throw"].includes(key),
    ),
  );
  return Object.assign(watched, controls) as unknown as ReturnType<typeof realSummon>;
}

process.on("beforeExit", () => {
  if (pending > 0)
    problems.push(`${pending} summon() call(s) were never iterated: nothing ran (use for await … of summon(…))`);
  if (problems.length > 0) {
    process.stderr.write(`${problems.join("\n")}\n`);
    process.exitCode = 1;
  }
  problems.length = 0;
  pending = 0;
});
