/**
 * A subagent's writes count for the parent's turn that started it: the checkpoint is taken
 * before the subagent's first writing call and tied to the parent's assistant message.
 */
import { readFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listCheckpoints, rewindFiles } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { ofType, resultOf } from "../helpers/collect";
import { agentCall, agentOf, answered } from "../agents/helpers";
import { scriptedRun, temp } from "./helpers";

describe("checkpoints and subagents", () => {
  it("a subagent's Bash writes are caught, under the parent's turn", async () => {
    const home = temp("ubq-ckpt-home-");
    const dir = temp();
    writeFileSync(join(dir, "f.txt"), "original\n");
    const model = scriptedModel(({ request }) => {
      if (agentOf(request) === "WRITER")
        return answered(request)
          ? "wrote it"
          : { toolCalls: [{ toolName: "Bash", input: { command: "echo changed > f.txt && echo new > sub.txt" } }] };
      return answered(request) ? "done" : { toolCalls: [agentCall("writer", "call_agent")] };
    });
    const messages = await scriptedRun(dir, home, [], {
      model,
      agents: { writer: { description: "Writes files", prompt: "You are WRITER." } },
    });
    const result = resultOf(messages);
    expect(result.isError, result.result).toBe(false);
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("changed\n");

    const query = { cwd: dir, sessionDir: join(home, "sessions") };
    const parentTurn = ofType(messages, "assistant").find((m) => m.agentId === undefined)!;
    expect((await listCheckpoints(result.sessionId, query)).map((c) => c.messageUuid)).toEqual([parentTurn.uuid]);
    await rewindFiles(result.sessionId, parentTurn.uuid, query);
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("original\n");
    expect(existsSync(join(dir, "sub.txt"))).toBe(false);
  });
});
