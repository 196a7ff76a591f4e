/**
 * What `ubiquity worker` (run the fleet's jobs) and `ubiquity fleet run|status|logs` (submit runs,
 * watch them) do; their flags are in commands.ts, which imports this on a command's first run.
 * The queue is `--redis` (or `--postgres` alone: BullMQ's Postgres backend), the session store
 * `--postgres`; `UBIQUITY_FLEET_REDIS` / `UBIQUITY_FLEET_POSTGRES` stand in for them.
 */
import { resolve } from "node:path";
import { absolutePath } from "../../src/index";
import { UsageError } from "../../loader/index";
import type { CommandArgs, CommandIO } from "../../loader/index";
import type { FleetJobInput } from "./jobs";
import type { AcceptedJobOptions } from "./job-policy";
import { formatRecord, formatStatus } from "./render";

function where(values: CommandArgs["values"]): { connection: string; store: string } {
  const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);
  const store = str(values.postgres) ?? process.env.UBIQUITY_FLEET_POSTGRES;
  if (!store)
    throw new UsageError("the fleet needs its session store: pass --postgres <url> or set UBIQUITY_FLEET_POSTGRES");
  return { connection: str(values.redis) ?? process.env.UBIQUITY_FLEET_REDIS ?? store, store };
}

function positiveInt(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--${flag} must be a positive integer, not ${JSON.stringify(value)}`);
  return n;
}

async function fleetFrom(values: CommandArgs["values"]) {
  const { createFleet } = await import("./fleet");
  return createFleet({
    ...where(values),
    queueName: typeof values.queue === "string" ? values.queue : undefined,
    attempts: positiveInt(values.attempts, "attempts"),
    backoffMs: positiveInt(values.backoff, "backoff"),
  });
}

function acceptedFrom(value: unknown): AcceptedJobOptions | undefined {
  if (typeof value !== "string") return undefined;
  if (value === "all") return "all";
  const keys = value
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean);
  if (keys.length === 0)
    throw new UsageError("--accept-job-options needs option names (model,permissionMode,…) or all");
  return keys;
}

/** `ubiquity worker`: run jobs until stopped. */
export async function runWorker({ values }: CommandArgs, io: CommandIO): Promise<number> {
  const { startWorker } = await import("./worker");
  const { config } = await io.config({ quiet: true });
  const worker = await startWorker({
    ...where(values),
    queueName: typeof values.queue === "string" ? values.queue : undefined,
    concurrency: positiveInt(values.concurrency, "concurrency"),
    lockDuration: positiveInt(values["lock-duration"], "lock-duration"),
    stalledInterval: positiveInt(values["stalled-interval"], "stalled-interval"),
    storeOutageTimeoutMs: positiveInt(values["store-outage-timeout"], "store-outage-timeout"),
    workdir: typeof values.workdir === "string" ? resolve(values.workdir) : undefined,
    acceptJobOptions: acceptedFrom(values["accept-job-options"]),
    ...(typeof values["allow-repos"] === "string"
      ? {
          allowRepositories: values["allow-repos"]
            .split(",")
            .map((p) => p.trim())
            .filter(Boolean),
        }
      : {}),
    ...(typeof values["allow-cwd"] === "string"
      ? {
          allowCwd: values["allow-cwd"]
            .split(",")
            .map((d) => d.trim())
            .filter(Boolean)
            .map((d) => absolutePath(process.cwd(), d)),
        }
      : {}),
    config,
    log: (line) => io.stderr(`[worker ${process.pid}] ${line}\n`),
  });
  io.stderr(`[worker ${process.pid}] ready: ${worker.name}\n`);
  await new Promise<void>((done) => {
    const stop = () => done();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await worker.close();
  return 0;
}

/** `ubiquity fleet run|status|logs` (`usage`: its subcommands, as its errors name them). */
export async function runFleet({ values, positionals }: CommandArgs, io: CommandIO, usage: string): Promise<number> {
  const [sub, ...rest] = positionals;
  if (sub !== "run" && sub !== "status" && sub !== "logs")
    throw new UsageError(`ubiquity fleet ${sub ? `"${sub}" is not a subcommand` : "needs a subcommand"}: use ${usage}`);
  if (sub === "run") {
    const prompt = rest.join(" ").trim();
    if (!prompt)
      throw new UsageError('ubiquity fleet run needs a prompt: ubiquity fleet run --repos a,b "fix the lint errors"');
    const usd = values["max-budget-usd"] === undefined ? undefined : Number(values["max-budget-usd"]);
    if (usd !== undefined && !(usd > 0))
      throw new UsageError(
        `--max-budget-usd must be a number greater than 0, not ${JSON.stringify(values["max-budget-usd"])}`,
      );
    const options: Record<string, unknown> = {};
    if (typeof values.model === "string") options.model = values.model;
    if (typeof values["permission-mode"] === "string") options.permissionMode = values["permission-mode"];
    const base = {
      prompt,
      options,
      ...(typeof values.preset === "string" ? { preset: values.preset } : {}),
      budget: { maxTurns: positiveInt(values["max-turns"], "max-turns"), maxBudgetUsd: usd },
    };
    const repos =
      typeof values.repos === "string"
        ? values.repos
            .split(",")
            .map((r) => r.trim())
            .filter(Boolean)
        : [];
    // A local repository travels as an absolute path: the worker may run elsewhere on this host.
    const local = (r: string) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(r) || /^[^/]+@[^:]+:/.test(r) ? r : resolve(r));
    const jobs: FleetJobInput[] = repos.length
      ? repos.map((r) => ({
          ...base,
          repository: local(r),
          ...(typeof values.ref === "string" ? { ref: values.ref } : {}),
          label: r,
        }))
      : [{ ...base, cwd: resolve(typeof values.cwd === "string" ? values.cwd : process.cwd()) }];
    const fleet = await fleetFrom(values);
    try {
      const ids: string[] = [];
      for (const job of jobs) ids.push(await fleet.submit(job));
      io.stdout(`${ids.join("\n")}\n`);
      io.stderr(
        `Queued ${ids.length} run${ids.length === 1 ? "" : "s"}; watch them with: ubiquity fleet status, ubiquity fleet logs <id> --follow\n`,
      );
      if (!values.wait) return 0;
      const runs = await fleet.wait(ids);
      io.stderr(formatStatus(runs));
      return runs.every((r) => r.state === "completed" && !r.outcome?.isError) ? 0 : 1;
    } finally {
      await fleet.close();
    }
  }
  const fleet = await fleetFrom(values);
  try {
    if (sub === "status") {
      const runs = await fleet.status(rest.length ? rest : undefined);
      io.stdout(values.json ? `${JSON.stringify(runs, null, 2)}\n` : formatStatus(runs, values.diff === true));
      return 0;
    }
    const id = rest[0];
    if (!id || rest.length > 1)
      throw new UsageError("ubiquity fleet logs needs one run id (see ubiquity fleet status)");
    for await (const record of fleet.logs(id, { follow: values.follow === true }))
      io.stdout(values.json ? `${JSON.stringify(record)}\n` : formatRecord(record));
    return 0;
  } finally {
    await fleet.close();
  }
}
