/**
 * The call limits keep one timer per call (issue 40's loop overhead): it fires at the nearest
 * deadline it knows of, and a part only notes its time. These pin what that one timer must still
 * do: the silence limit takes over from the request limit as the answer starts (coming forward
 * when it is the nearer), parts keep a stream alive, the total bounds a stream that never goes
 * silent, and a restart moves the request deadline. Each waits on the watch's own signal.
 */
import { describe, expect, it } from "vitest";
import { CallWatch } from "../../src/call-limits";

const aborted = (watch: CallWatch) =>
  new Promise<void>((resolve) => watch.signal.addEventListener("abort", () => resolve(), { once: true }));

describe("CallWatch", () => {
  it("a shorter silence limit comes forward once the answer starts (the request limit no longer applies)", async () => {
    const watch = new CallWatch({ label: "m", requestTimeoutMs: 60_000, streamIdleTimeoutMs: 40 });
    watch.part(3);
    await aborted(watch);
    expect(watch.error?.limit).toBe("streamIdleTimeoutMs");
    expect(watch.error?.message).toMatch(/went silent for 0\.0 s \(streamIdleTimeoutMs: 40\)/);
  });

  it("parts keep the stream alive past the silence limit; the total cuts it", async () => {
    // A part every 10 ms against a 200 ms silence limit: a stalled event loop delays the beat and
    // the check alike, and the beat, due first, runs first.
    const watch = new CallWatch({ label: "m", streamIdleTimeoutMs: 200, responseTimeoutMs: 800 });
    const beat = setInterval(() => watch.part(1), 10);
    try {
      await aborted(watch);
    } finally {
      clearInterval(beat);
    }
    expect(watch.error?.limit).toBe("responseTimeoutMs");
    expect(watch.error?.message).toMatch(/was still streaming after 0\.8 s/);
    expect(watch.elapsedMs).toBeGreaterThanOrEqual(799);
  });

  it("with no answer the request limit fires, and a restart counts it from the new attempt", async () => {
    const watch = new CallWatch({ label: "m", requestTimeoutMs: 80 });
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
    watch.restart();
    await aborted(watch);
    expect(watch.error?.limit).toBe("requestTimeoutMs");
    expect(performance.now() - started).toBeGreaterThanOrEqual(125);
  });

  it("a disposed watch never fires, and the parent's abort reaches the call with its reason", async () => {
    const quiet = new CallWatch({ label: "m", requestTimeoutMs: 20 });
    quiet.dispose();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(quiet.signal.aborted).toBe(false);
    const parent = new AbortController();
    const watch = new CallWatch({ label: "m", parent: parent.signal });
    parent.abort(new Error("stop"));
    expect(watch.signal.reason).toEqual(new Error("stop"));
    expect(watch.error).toBeUndefined();
    watch.dispose();
  });
});
