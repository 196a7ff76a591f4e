import { describe, expect, it } from "vitest";

describe("runtime", () => {
  it("runs the tests on Node >= 22 (the repo pins Node 24 through the node devDependency)", () => {
    const major = Number(process.versions.node.split(".")[0]);
    expect(major).toBeGreaterThanOrEqual(22);
  });
});
