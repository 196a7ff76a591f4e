import { decidePermission } from "./plugins/permissions/decide";
import { loadBenignCorpus, makeProjectFixture } from "./test/permissions/corpus/corpus";
const corpus = loadBenignCorpus(); const fx = makeProjectFixture();
for (const { command } of corpus) {
  const a = await decidePermission({ toolName: "Bash", input: { command }, mode: "bypassPermissions", cwd: fx.cwd, home: fx.home, sandbox: true });
  if (a.behavior !== "allow") console.log("A", JSON.stringify(command).slice(0, 100), "::", a.message.slice(0, 150));
  const c = await decidePermission({ toolName: "Bash", input: { command }, rules: { allow: ["Read", "Glob", "Grep", "Bash(npm test:*)"], deny: ["Bash(rm:*)"] }, cwd: fx.cwd, home: fx.home });
  if (c.behavior === "deny" && !/\brm\b/.test(command)) console.log("C", JSON.stringify(command).slice(0, 100), "::", c.message.slice(0, 200));
}
fx.remove();
