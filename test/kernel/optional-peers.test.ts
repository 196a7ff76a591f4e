/**
 * Optional peer dependencies (the ACP SDK, pg, bullmq, provider packages): loaded on use, and when
 * one is not installed the error names what needs it and the install command.
 */
import { describe, expect, it } from "vitest";
import { importOptional, isMissingModule, MissingPackageError } from "../../plugins/_kits/lazy/index";

const absent = "ubiquity-test-no-such-package";

describe("importOptional", () => {
  it("names what needs a package that is not installed and how to install it", async () => {
    const error = await importOptional(() => import(/* @vite-ignore */ absent), absent, "the thing").catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MissingPackageError);
    expect((error as Error).message).toBe(
      `the thing needs the ${absent} package, an optional peer of ubiquity that is not installed: npm i ${absent}`,
    );
  });

  it("uses the install command it is given", async () => {
    const error = await importOptional(
      () => import(/* @vite-ignore */ absent),
      absent,
      "ubiquity acp",
      "npx -p x y",
    ).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/: npx -p x y$/);
  });

  it("passes other failures through: a package that is there but breaks, or another package missing", async () => {
    const broken = new SyntaxError("Unexpected token");
    await expect(importOptional(() => Promise.reject(broken), "pg", "x")).rejects.toBe(broken);
    const other = await importOptional(() => import(/* @vite-ignore */ absent), "pg", "x").catch((e: unknown) => e);
    expect(other).not.toBeInstanceOf(MissingPackageError);
    expect(isMissingModule(other, absent)).toBe(true);
  });

  it("returns the module when it is installed", async () => {
    const zod = await importOptional(() => import("zod"), "zod", "x");
    expect(typeof zod.z.object).toBe("function");
  });
});
