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

  it("looks for the package as the quoted specifier, not anywhere in the message (the importing folder may hold its name)", () => {
    const inPath = Object.assign(
      new Error(`Cannot find package '${absent}' imported from /tmp/tmp.c5lMwPpgUy/r/test/x.ts`),
      { code: "ERR_MODULE_NOT_FOUND" },
    );
    expect(isMissingModule(inPath, "pg")).toBe(false);
    expect(isMissingModule(inPath, absent)).toBe(true);
    const file = Object.assign(
      new Error("Cannot find module '/app/node_modules/pg/lib/index.js' imported from /app/x.js"),
      {
        code: "ERR_MODULE_NOT_FOUND",
      },
    );
    expect(isMissingModule(file, "pg")).toBe(true);
    const scoped = Object.assign(new Error("Cannot find module '@ai-sdk/anthropic'\nRequire stack:\n- /pg/x.js"), {
      code: "MODULE_NOT_FOUND",
    });
    expect(isMissingModule(scoped, "@ai-sdk/anthropic")).toBe(true);
    expect(isMissingModule(scoped, "pg")).toBe(false);
  });

  it("returns the module when it is installed", async () => {
    const zod = await importOptional(() => import("zod"), "zod", "x");
    expect(typeof zod.z.object).toBe("function");
  });
});
