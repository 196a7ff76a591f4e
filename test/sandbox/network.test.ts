/** The network allow-list, through the filtering proxy on the host, against real servers on 127.0.0.1. */
import { afterEach, describe, expect, it } from "vitest";
import type { KernelEvent } from "ubiquity/plugin";
import { outputs, recordingServer, runBash, sandboxPlace, SKIP } from "./helpers";

const place = sandboxPlace();
const servers: { close(): void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

describe.skipIf(SKIP)("sandbox network.allowedDomains", () => {
  it("lets exactly the listed server through; another port, another address and another host are refused", async () => {
    const allowed = await recordingServer();
    const other = await recordingServer();
    servers.push(allowed.server, other.server);
    const events: KernelEvent[] = [];
    const messages = await runBash(
      [
        `curl -sS --max-time 5 http://localhost:${allowed.port}/through`,
        `curl -sS --max-time 5 http://localhost:${other.port}/other-port`,
        `curl -sS --max-time 5 http://127.0.0.1:${allowed.port}/other-name`,
        "curl -sS --max-time 5 -o /dev/null https://example.com/",
        // A client that ignores the proxy variables has no route out at all.
        `curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:${allowed.port}/direct`,
      ],
      {
        cwd: place.ws(),
        sandbox: { network: { allowedDomains: [`localhost:${allowed.port}`] } },
        permissionMode: "bypassPermissions",
        plugins: [{ name: "test:events", apply: (k) => k.hooks.event.tap("test:events", (e) => void events.push(e)) }],
      },
    );
    const out = outputs(messages);
    expect(out.c0!.content).toBe("hello from the test server");
    for (const id of ["c1", "c2", "c3"])
      expect(out[id]!.content, id).toContain("blocked by the sandbox: network access to");
    expect(out.c4!.isError).toBe(true);
    expect(allowed.hits).toEqual(["/through"]);
    expect(other.hits).toEqual([]);
    const refused = events.flatMap((e) => (e.type === "sandbox.violation" && e.kind === "network" ? [e.detail] : []));
    expect(refused).toHaveLength(3);
    expect(refused[0]).toContain(`localhost:${other.port}`);
  });

  it("deniedDomains wins over allowedDomains", async () => {
    const s = await recordingServer();
    servers.push(s.server);
    const out = outputs(
      await runBash([`curl -sS --max-time 5 http://localhost:${s.port}/a`], {
        cwd: place.ws(),
        sandbox: { network: { allowedDomains: ["localhost"], deniedDomains: [`localhost:${s.port}`] } },
        permissionMode: "bypassPermissions",
      }),
    );
    expect(out.c0!.content).toContain("is in deniedDomains");
    expect(s.hits).toEqual([]);
  });

  it('network: "all" shares the host network (the test server is reached directly)', async () => {
    const s = await recordingServer();
    servers.push(s.server);
    const out = outputs(
      await runBash([`curl -sS --max-time 5 http://127.0.0.1:${s.port}/open`], {
        cwd: place.ws(),
        sandbox: { network: "all" },
        permissionMode: "bypassPermissions",
      }),
    );
    expect(out.c0!.content).toBe("hello from the test server");
    expect(s.hits).toEqual(["/open"]);
  });

  it("with the network off, package managers are told they are offline: npx answers from its cache at once (ENOTCACHED), not after its retries", async () => {
    const messages = await runBash(
      [
        'npm config get offline; echo "uv=$UV_OFFLINE yarn=$YARN_ENABLE_OFFLINE_MODE"',
        // A name no cache holds: without the offline flag npm retries the unreachable registry (~70 s) and fails on EAI_AGAIN.
        "npx --yes ubiquity-test-package-never-published-0b7e 2>&1; echo rc=$?",
      ],
      { cwd: place.ws(), permissionMode: "bypassPermissions" },
    );
    const out = outputs(messages);
    expect(out.c0!.content).toBe("true\nuv=1 yarn=1");
    expect(out.c1!.content).toContain("ENOTCACHED");
    expect(out.c1!.content).not.toContain("EAI_AGAIN");
    // The user's own env wins; and with the network on, nothing is said.
    const own = outputs(
      await runBash(["npm config get offline"], {
        cwd: place.ws(),
        permissionMode: "bypassPermissions",
        env: { npm_config_offline: "false" },
      }),
    );
    expect(own.c0!.content).toBe("false");
    const all = outputs(
      await runBash(['npm config get offline; echo "uv=$UV_OFFLINE"'], {
        cwd: place.ws(),
        permissionMode: "bypassPermissions",
        sandbox: { network: "all" },
      }),
    );
    expect(all.c0!.content).toBe("false\nuv=");
  });
});
