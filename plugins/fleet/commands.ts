/**
 * The `ubiquity worker` and `ubiquity fleet` commands as the runner lists and parses them: their
 * summary, usage and flags. What they do (fleet-command.ts, and bullmq under it) loads on a command's
 * first run, so a process that runs neither never loads it (issue 40).
 */
import type { CommandArgs, CommandIO, PluginCommand } from "../../loader/index";
import { lazyImport } from "../_kits/lazy/index";

const commands = lazyImport(() => import("./fleet-command"));

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
  run: async (args: CommandArgs, io: CommandIO) => (await commands()).runWorker(args, io),
};

/** The fleet command's subcommands, as its usage and its errors name them. */
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
  run: async (args: CommandArgs, io: CommandIO) => (await commands()).runFleet(args, io, SUBS),
};
