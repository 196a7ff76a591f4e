/**
 * `ubiquity worker` (run the fleet's jobs) and `ubiquity fleet run|status|logs` (submit runs,
 * watch them). The queue is `--redis` (or `--postgres` alone: BullMQ's Postgres backend), the
 * session store `--postgres`; `UBIQUITY_FLEET_REDIS` / `UBIQUITY_FLEET_POSTGRES` stand in for them.
 */
import { resolve } from "node:path";
import { absolutePath } from "../../src/index";
import { UsageError } from "../../loader/index";
import type { CommandArgs, CommandIO, PluginCommand } from "../../loader/index";
import type { FleetJobInput } from "./jobs";
import type { AcceptedJobOptions } from "./job-policy";
import { formatRecord, formatStatus } from "./render";

const endpoints = {
  redis: {
    type: "string",
    value: "<url>",
    description: "The queue's Redis [$UBIQUITY_FLEET_REDIS; without it the queue runs on --postgres]",
  },
  postgres: {
    type: "string",
    value: "<url>",
    description: "The session store's PostgreSQL [$UBIQUITY_FLEET_POSTGRES]",
  },
  queue: { type: "string", value: "<name>", description: "The queue's name [ubiquity-fleet]" },
} as const;

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

/** `ubiquity worker`. */
export const workerCommand: PluginCommand = {
  summary: "Run fleet jobs from the queue (until stopped with Ctrl-C / SIGTERM)",
  usage: "[--concurrency n] [--redis url] [--postgres url]",
  config: true,
  flags: {
    ...endpoints,
    concurrency: { type: "string", value: "<n>", description: "Runs at once in this worker [1]" },
    "lock-duration": {
      type: "string",
      value: "<ms>",
      description: "A job's lock without renewal: how long a frozen worker keeps its job [30000]",
    },
    "stalled-interval": {
      type: "string",
      value: "<ms>",
      description: "How often this worker looks for stalled jobs [the lock duration]",
    },
    "store-outage-timeout": {
      type: "string",
      value: "<ms>",
      description:
        "How long reads and appends wait out a session store that cannot be reached (a restart) before a try fails [30000]",
    },
    workdir: {
      type: "string",
      value: "<dir>",
      description: "Where repository jobs are checked out [<tmp>/ubiquity-fleet]",
    },
    "allow-cwd": {
      type: "string",
      value: "<dir,dir>",
      description: "The folders a job's cwd and a local repository must be inside [none]",
    },
    "allow-repos": {
      type: "string",
      value: "<host/path,…>",
      description: "The remote repositories a job may name (github.com/acme, github.com/acme/*) [any]",
    },
    "accept-job-options": {
      type: "string",
      value: "<keys|all>",
      description:
        "Run options a job may set over this worker's config [model and what narrows a run]; all: every option and a job's preset (trust the queue)",
    },
  },
  async run({ values }, io) {
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
  },
};

const SUBS = "run [--repos a,b,c] <prompt> | status [id…] | logs <id> [--follow]";

/** `ubiquity fleet`. */
export const fleetCommand: PluginCommand = {
  summary: "Fan runs out to the fleet's workers and watch them",
  usage: SUBS,
  positionals: true,
  flags: {
    ...endpoints,
    repos: {
      type: "string",
      value: "<a,b,c>",
      description: "run: one run per repository (path or git URL), each in its own checkout",
    },
    ref: {
      type: "string",
      value: "<ref>",
      description: "run: the ref each repository is checked out at [its default branch]",
    },
    cwd: { type: "string", value: "<dir>", description: "run: without --repos, the folder the run works in [.]" },
    model: { type: "string", value: "<model>", description: "run: the model [the worker's config]" },
    preset: {
      type: "string",
      value: "<module>",
      description: "run: a preset module for the run, e.g. ubiquity/presets/headless",
    },
    "permission-mode": {
      type: "string",
      value: "<mode>",
      description: "run: the permission mode [the worker's config]",
    },
    "max-turns": { type: "string", value: "<n>", description: "run: the turn budget of each run" },
    "max-budget-usd": { type: "string", value: "<usd>", description: "run: the spending cap of each run" },
    wait: { type: "boolean", description: "run: wait for the runs and print their status" },
    attempts: {
      type: "string",
      value: "<n>",
      description: "run: tries of a job whose worker could not finish it (the store or checkout out of reach) [5]",
    },
    backoff: { type: "string", value: "<ms>", description: "run: the first wait before another try, doubling [2000]" },
    diff: { type: "boolean", description: "status: print each run's diff" },
    follow: { type: "boolean", short: "f", description: "logs: keep streaming while the run goes" },
    json: { type: "boolean", description: "status: JSON; logs: the records as JSON lines" },
  },
  async run({ values, positionals }, io: CommandIO) {
    const [sub, ...rest] = positionals;
    if (sub !== "run" && sub !== "status" && sub !== "logs")
      throw new UsageError(
        `ubiquity fleet ${sub ? `"${sub}" is not a subcommand` : "needs a subcommand"}: use ${SUBS}`,
      );
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
  },
};
