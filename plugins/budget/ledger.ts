/**
 * One ledger per root run: what the run and everything under it (subagents, compaction summaries,
 * a plugin's own calls) has spent, and what is in flight. A subagent is a child run, so the ledger
 * lives on the root and every run in the tree checks against it.
 */
import type { RunContext } from "../../src/index";
import type { Estimate, SentRecord } from "./estimate";
import type { BudgetReport } from "./result-fields";

/** A refusal, kept so every later request in the tree is refused the same way. */
export interface Refusal {
  subtype: "error_max_budget_usd" | "error_max_budget_tokens";
  message: string;
}

/** The budget plugin's state in one run; the ledger fields are used on the root run only. */
export interface RunBudget {
  spentUsd: number;
  spentTokens: number;
  /** The worst case of each request on its way, by run: parallel subagents, and a run's own side calls made in parallel (tools calling `callModel`). */
  inFlight: Map<RunContext, { purpose: string; estimate: Estimate }[]>;
  refusal?: Refusal;
  /** The refused request's figures, for `result.budget.refused`. */
  refused?: BudgetReport["refused"];
  /** Whether a response without usage was already said to be charged its worst case. */
  unreportedWarned?: boolean;
  /** What the provider counted for this run's last request of each purpose (a summary never stands for the conversation). */
  sent: Map<string, SentRecord>;
}

/** A fresh run state. */
export function runBudget(): RunBudget {
  return { spentUsd: 0, spentTokens: 0, inFlight: new Map(), sent: new Map() };
}

/** The root of `run`'s tree: the run whose options set the caps and whose state holds the ledger. */
export function rootOf(run: RunContext): RunContext {
  let r = run;
  while (r.parent) r = r.parent;
  return r;
}

/** What requests in flight in the tree may still spend. */
export function reservedBy(ledger: RunBudget): { usd: number; tokens: number } {
  let usd = 0;
  let tokens = 0;
  for (const { estimate } of [...ledger.inFlight.values()].flat()) {
    usd += estimate.costUsd ?? 0;
    tokens += estimate.tokens;
  }
  return { usd, tokens };
}

/** Take back one reservation of `run` (the first of `purpose`, else its first): its request was answered or failed for good. Returns its estimate. */
export function release(ledger: RunBudget, run: RunContext, purpose: string): Estimate | undefined {
  const list = ledger.inFlight.get(run);
  if (!list) return undefined;
  const i = list.findIndex((r) => r.purpose === purpose);
  const [released] = list.splice(Math.max(i, 0), 1);
  if (list.length === 0) ledger.inFlight.delete(run);
  return released?.estimate;
}
