/**
 * Colours for the runner's terminal output, through Node's `util.styleText` (no escape codes
 * of our own). On in a terminal; `NO_COLOR` turns them off and `FORCE_COLOR` on (or off with
 * `FORCE_COLOR=0`), the conventions terminal users set once for every tool.
 */
import { createRequire } from "node:module";

// node:util by require, not by import: an ESM import of a builtin reads every export, and
// util's lazy ones load worker_threads, the diff and colour code (~2.5 ms of a cold start).
const { styleText } = createRequire(import.meta.url)("node:util") as typeof import("node:util");

/** True when output to a stream that is (or is not) a terminal should be coloured. */
export function colorEnabled(isTTY: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") return !["0", "false"].includes(force.toLowerCase());
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.NODE_DISABLE_COLORS !== undefined && env.NODE_DISABLE_COLORS !== "") return false;
  return isTTY && env.TERM !== "dumb";
}

type Format = Parameters<typeof styleText>[0];

/** The few styles the runner uses; each is the identity when colours are off. */
export interface Style {
  readonly enabled: boolean;
  dim(text: string): string;
  bold(text: string): string;
  error(text: string): string;
  ok(text: string): string;
  tool(text: string): string;
  prompt(text: string): string;
}

/** Styles that colour when `enabled`. */
export function createStyle(enabled: boolean): Style {
  // The decision is made above (for the stream the text goes to), so styleText must not re-check it.
  const paint = (format: Format) => (text: string) =>
    enabled ? styleText(format, text, { validateStream: false }) : text;
  return {
    enabled,
    dim: paint("dim"),
    bold: paint("bold"),
    error: paint("red"),
    ok: paint("green"),
    tool: paint("cyan"),
    prompt: paint(["bold", "magenta"]),
  };
}

/** No colours. */
export const PLAIN: Style = createStyle(false);
