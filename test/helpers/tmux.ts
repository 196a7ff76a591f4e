/**
 * A real terminal for the terminal UI's tests: tmux (a private server per test) runs the built bin
 * in a pane of a fixed size; the test types keys, pastes (bracketed, as a terminal pastes), and
 * reads the screen as tmux rendered it — cursor moves and redraws applied, so what the test sees
 * is what a person would. Every wait polls the screen until its content holds (generous bound),
 * never a fixed sleep.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { binPath } from "./project";

/** True when tmux is installed; with UBIQUITY_REQUIRE_TMUX=1 (.ci/run installs it) a missing tmux fails instead of skipping. */
export function hasTmux(): boolean {
  const found = spawnSync("tmux", ["-V"]).status === 0;
  if (!found && process.env.UBIQUITY_REQUIRE_TMUX === "1")
    throw new Error("UBIQUITY_REQUIRE_TMUX=1 but tmux is not installed (apt-get install -y tmux)");
  return found;
}

/** The terminal UI is idle: its status line is drawn and no spinner runs. */
export const idleScreen = (s: string) => s.includes(" mode · ") && !/· \d+s · ↓/.test(s);

/** Close after each test of the file every terminal passed to the function this returns (it returns the terminal). */
export function closedAfterEach(): (t: TmuxTerminal) => TmuxTerminal {
  const open: TmuxTerminal[] = [];
  afterEach(() => {
    for (const t of open.splice(0)) t.close();
  });
  return (t) => {
    open.push(t);
    return t;
  };
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The bin running in a tmux pane. */
export class TmuxTerminal {
  readonly #dir: string;
  readonly #socket: string;
  #env: NodeJS.ProcessEnv;

  private constructor(env: NodeJS.ProcessEnv) {
    this.#dir = mkdtempSync(join(tmpdir(), "ubq-tmux-"));
    this.#socket = join(this.#dir, "socket");
    this.#env = env;
  }

  /** Start `ubiquity <args>` in `cwd` in a terminal of `columns` × `rows`; the pane stays after it exits, showing its exit code. */
  static start(
    cwd: string,
    args: string[],
    env: Record<string, string>,
    { columns = 100, rows = 40 } = {},
  ): TmuxTerminal {
    const fullEnv: NodeJS.ProcessEnv = {
      ...process.env,
      UBIQUITY_TRUST: "1",
      DEBUG: "",
      TERM: "xterm-256color",
      ...env,
    };
    delete fullEnv.TMUX;
    delete fullEnv.NO_COLOR;
    const t = new TmuxTerminal(fullEnv);
    const command = `cd ${quote(cwd)} && ${[process.execPath, binPath, ...args].map(quote).join(" ")}; echo "[exited $?]"; exec sleep 100000`;
    t.#tmux(["-f", "/dev/null", "new-session", "-d", "-x", String(columns), "-y", String(rows), "sh", "-c", command]);
    return t;
  }

  #tmux(args: string[], input?: string): string {
    const r = spawnSync("tmux", ["-S", this.#socket, ...args], { env: this.#env, input, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`tmux ${args.join(" ")} failed: ${r.stderr}`);
    return r.stdout;
  }

  /** The visible screen, as text. */
  screen(): string {
    return this.#tmux(["capture-pane", "-p", "-t", "0"]).replace(/\s+$/, "");
  }

  /** Everything shown so far: the scrollback and the screen, wrapped lines joined. */
  history(): string {
    return this.#tmux(["capture-pane", "-p", "-J", "-S", "-", "-t", "0"]).replace(/\s+$/, "");
  }

  /** Type text as keys (literally: "\r" is Enter). */
  type(text: string): void {
    this.#tmux(["send-keys", "-t", "0", "-l", "--", text]);
  }

  /** Press named keys (tmux names: C-c, Enter, Escape, M-Enter). */
  keys(...names: string[]): void {
    this.#tmux(["send-keys", "-t", "0", ...names]);
  }

  /** Paste text as the terminal pastes it: bracketed, since the program asked for bracketed paste. */
  paste(text: string): void {
    this.#tmux(["load-buffer", "-b", "p", "-"], text);
    this.#tmux(["paste-buffer", "-p", "-d", "-b", "p", "-t", "0"]);
  }

  /** Resize the terminal (the program gets SIGWINCH). */
  resize(columns: number, rows: number): void {
    this.#tmux(["resize-window", "-t", "0", "-x", String(columns), "-y", String(rows)]);
  }

  /** Wait until `until` holds for the history (or the screen with `on: "screen"`); throws with the screen after `timeoutMs`. */
  async waitFor(
    what: string,
    until: (text: string) => boolean,
    { on = "history", timeoutMs = 120_000 }: { on?: "history" | "screen"; timeoutMs?: number } = {},
  ): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = on === "screen" ? this.screen() : this.history();
      if (until(text)) return text;
      // The program ended without showing it: no use waiting.
      const ended = what !== "the program to exit" && /\[exited \d+\]/.test(this.history());
      if (ended || Date.now() > deadline)
        throw new Error(
          `${ended ? "the program exited" : "timed out"} waiting for ${what}; the terminal shows:\n${this.history()}`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Wait for the program to exit; its exit code. */
  async exitCode(): Promise<number> {
    const text = await this.waitFor("the program to exit", (t) => /\[exited \d+\]/.test(t));
    return Number(/\[exited (\d+)\]/.exec(text)![1]);
  }

  /** Stop tmux and remove its socket. */
  close(): void {
    spawnSync("tmux", ["-S", this.#socket, "kill-server"], { env: this.#env });
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
