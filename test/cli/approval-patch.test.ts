/** The terminal's approval question for apply_patch shows the patch, line by line, not a squashed argument. */
import { describe, expect, it } from "vitest";
import { approvalBody } from "../../runner/tui/approval-view";
import { createTheme } from "../../runner/tui/theme";

describe("approval body of apply_patch", () => {
  it("lists the file operations and hunk lines, without the envelope", () => {
    const input = [
      "*** Begin Patch",
      "*** Update File: a.txt",
      "@@",
      " keep",
      "-old",
      "+new",
      "*** Delete File: b.txt",
      "*** End Patch",
    ].join("\n");
    expect(approvalBody("apply_patch", { input }, "/p", createTheme(false))).toEqual([
      "apply_patch",
      "*** Update File: a.txt",
      "@@",
      " keep",
      "-old",
      "+new",
      "*** Delete File: b.txt",
    ]);
  });
});
