/**
 * A headless Chromium driven over the DevTools protocol (Node's own WebSocket, no extra
 * dependency): open a page, wait for its load, and take a PNG screenshot. Needs Debian's
 * `chromium` (CI installs it in .ci/run).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateSync } from "node:zlib";

/** The Chromium binary, or undefined when none is installed. */
export function chromiumPath(): string | undefined {
  for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
    const found = spawnSync("which", [name], { encoding: "utf8" }).stdout.trim();
    if (found) return found;
  }
  return undefined;
}

/** A running headless browser: `screenshot(url)` renders one page; `close()` ends the process and removes its profile. */
export interface Browser {
  screenshot(url: string, size?: { width: number; height: number }): Promise<Buffer>;
  close(): Promise<void>;
}

/** Start Chromium headless with a throw-away profile. */
export async function launchChromium(binary: string): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "ubq-chromium-"));
  const child: ChildProcess = spawn(
    binary,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      `--user-data-dir=${profile}`,
      "--remote-debugging-port=0",
      "about:blank",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  // Chromium writes the port it chose to DevToolsActivePort in the profile; wait for that file (bounded by the test's timeout).
  const portFile = join(profile, "DevToolsActivePort");
  while (!existsSync(portFile) || readFileSync(portFile, "utf8").split("\n").length < 2) {
    if (child.exitCode !== null) throw new Error(`chromium exited (${child.exitCode}): ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const [port, path] = readFileSync(portFile, "utf8").split("\n");
  const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let nextId = 1;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const listeners = new Set<(message: { method?: string; sessionId?: string; params?: unknown }) => void>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as {
      id?: number;
      result?: unknown;
      error?: { message: string };
      method?: string;
      sessionId?: string;
    };
    if (message.id !== undefined) {
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) waiter?.reject(new Error(message.error.message));
      else waiter?.resolve(message.result);
    } else for (const listener of listeners) listener(message);
  });
  const send = <T>(method: string, params: object = {}, sessionId?: string) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      socket.send(JSON.stringify({ id, method, params, sessionId }));
    });

  return {
    async screenshot(url, size = { width: 1280, height: 800 }) {
      const { targetId } = await send<{ targetId: string }>("Target.createTarget", { url: "about:blank" });
      const { sessionId } = await send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true });
      await send("Page.enable", {}, sessionId);
      await send("Emulation.setDeviceMetricsOverride", { ...size, deviceScaleFactor: 1, mobile: false }, sessionId);
      const loaded = new Promise<void>((resolve) => {
        const listener = (m: { method?: string; sessionId?: string }) => {
          if (m.method === "Page.loadEventFired" && m.sessionId === sessionId) {
            listeners.delete(listener);
            resolve();
          }
        };
        listeners.add(listener);
      });
      await send("Page.navigate", { url }, sessionId);
      await loaded;
      // The theme hydrates after load; wait for the app's root to hold content, then for fonts.
      await send(
        "Runtime.evaluate",
        {
          expression:
            "new Promise((r) => { const t = () => document.querySelector('#app')?.children.length ? document.fonts.ready.then(r) : setTimeout(t, 50); t(); })",
          awaitPromise: true,
        },
        sessionId,
      );
      const { data } = await send<{ data: string }>("Page.captureScreenshot", { format: "png" }, sessionId);
      await send("Target.closeTarget", { targetId });
      return Buffer.from(data, "base64");
    },
    async close() {
      socket.close();
      const exited = new Promise((r) => child.once("exit", r));
      child.kill();
      if (child.exitCode === null) await exited;
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A decoded PNG (8-bit RGB or RGBA, as Chromium writes them): width, height and RGBA pixels. */
export function decodePng(png: Buffer): { width: number; height: number; pixels: Uint8Array } {
  if (png.readUInt32BE(0) !== 0x89504e47) throw new Error("not a PNG");
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("ascii", offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || (data[9] !== 2 && data[9] !== 6) || data[12] !== 0)
        throw new Error("unsupported PNG (want 8-bit RGB/RGBA, not interlaced)");
      channels = data[9] === 6 ? 4 : 3;
    } else if (type === "IDAT") idat.push(data);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = new Uint8Array(width * height * 4);
  let previous = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = new Uint8Array(stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? row[x - channels]! : 0;
      const b = previous[x]!;
      const c = x >= channels ? previous[x - channels]! : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][filter] ?? 0;
      row[x] = (line[x]! + predictor) & 0xff;
    }
    for (let x = 0; x < width; x++) {
      for (let k = 0; k < 3; k++) out[(y * width + x) * 4 + k] = row[x * channels + k]!;
      out[(y * width + x) * 4 + 3] = channels === 4 ? row[x * channels + 3]! : 255;
    }
    previous = row;
  }
  return { width, height, pixels: out };
}
