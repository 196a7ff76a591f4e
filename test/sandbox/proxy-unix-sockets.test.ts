/**
 * With network.allowedDomains the proxy is reached through a bridge started from the host side
 * (plugins/sandbox/bridge.ts), so the socket filter stays whole: a host Unix socket the sandbox
 * can see is out of reach for socat, nc -U, python and node, while the allowed host is still
 * reached through the proxy. Real bubblewrap, a real HTTP server and a real Unix listener.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { scriptedModel } from "ubiquity/testing";
import { summon } from "ubiquity";
import { collect } from "../helpers/collect";
import { hostSocket, outputs, recordingServer, runBash, sandboxPlace, SKIP } from "./helpers";

const place = sandboxPlace();
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** Live processes whose working folder is one of this process's sandbox folders (the bridge runs there). */
function bridgesLeft(): number[] {
  const mine = `ubiquity-sandbox-${process.pid}-`;
  return readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
        return state !== "Z" && readlinkSync(`/proc/${pid}/cwd`).includes(mine);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The bridges still alive once they had their chance to end (polled: they end just after bwrap). */
async function bridgesGone(): Promise<number[]> {
  // The bound only catches a bridge that never ends, never a loaded machine's slow one.
  for (const end = Date.now() + 120_000; bridgesLeft().length > 0 && Date.now() < end; )
    await new Promise((r) => setTimeout(r, 25));
  return bridgesLeft();
}

const attempts = [
  "socat -u OPEN:/dev/null UNIX-CONNECT:dev.sock; echo socat-exit=$?",
  "nc -U dev.sock </dev/null; echo nc-exit=$?",
  `python3 -c "import socket;s=socket.socket(socket.AF_UNIX);s.connect('dev.sock');print(s.recv(99))"`,
  `node -e "require('net').connect('dev.sock').on('data',d=>console.log(String(d))).on('error',e=>console.log('node', e.code))"`,
];

describe.skipIf(SKIP)("network.allowedDomains keeps Unix sockets refused", () => {
  it("the allowed request goes through the proxy; socat, nc -U, python and node cannot reach a host Unix socket; the bridge ends with the run", async () => {
    const ws = place.ws();
    const allowed = await recordingServer();
    closers.push(() => allowed.server.close());
    const { hits, close } = await hostSocket(ws);
    closers.push(close);
    const out = outputs(
      await runBash([`curl -sS --max-time 10 http://localhost:${allowed.port}/through`, ...attempts], {
        cwd: ws,
        sandbox: { network: { allowedDomains: [`localhost:${allowed.port}`] } },
        permissionMode: "bypassPermissions",
      }),
    );
    expect(out.c0!.content).toBe("hello from the test server");
    expect(allowed.hits).toEqual(["/through"]);
    for (const id of ["c1", "c2", "c3", "c4"]) expect(out[id]!.content, id).not.toContain("HELLO-FROM-HOST");
    expect(out.c1!.content).toMatch(/Operation not permitted[\s\S]*socat-exit=1/);
    expect(out.c2!.content).toMatch(/nc-exit=1/);
    expect(out.c3!.content).toContain("PermissionError");
    expect(out.c4!.content).toContain("node EPERM");
    expect(hits).toEqual([]);
    // The bridge ends at the end of file of bwrap's --sync-fd, a moment after the command returns.
    expect(await bridgesGone()).toEqual([]);
  });

  it("the proxy's own socket is out of the sandbox's sight, the start warning says nothing of Unix sockets and the system prompt says they cannot be made", async () => {
    const ws = place.ws();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: "ls -a /tmp; echo listed" }, id: "c0" }] },
      "done",
    ]);
    const messages = await collect(
      summon("go", {
        model,
        cwd: ws,
        sandbox: { network: { allowedDomains: ["example.com"] } },
        permissionMode: "bypassPermissions",
        persistSession: false,
        persistTodos: false,
      }),
    );
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    expect(init && "sandbox" in init ? init.sandbox?.warning : "no init").toBeUndefined();
    const out = outputs(messages);
    expect(out.c0!.content).toContain("listed");
    expect(out.c0!.content).not.toContain("ubiquity-proxy");
    expect(JSON.stringify(model.requests[0]!.prompt[0])).toContain("No Unix sockets");
  });
});
