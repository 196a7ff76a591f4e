// A small language server for the tests: it speaks LSP over stdio, asks the client for its settings
// (workspace/configuration) and a progress token before answering initialize, and answers
// documentSymbol with symbols that report what it could do where it runs: write a file named by
// PROBE_WRITE, whether a variable named by PROBE_ENV is set, and the settings it was given. Told
// of a document's text (didOpen, didChange), it publishes a diagnostic for each line reading
// `ERROR: …` or `WARN: …` at once, unless PROBE_SILENT is set (a server that publishes nothing).
import { writeFileSync } from "node:fs";
import { onMessages, send } from "../helpers/lsp-stdio.mjs";

let nextId = 1000;
const waiting = new Map();

function ask(method, params) {
  const id = nextId++;
  send({ id, method, params });
  return new Promise((resolve) => waiting.set(id, resolve));
}

let settings = null;

async function handle(message) {
  if (message.id !== undefined && message.method === undefined) {
    waiting.get(message.id)?.(message.result);
    waiting.delete(message.id);
    return;
  }
  switch (message.method) {
    case "initialize": {
      await ask("window/workDoneProgress/create", { token: "load" });
      [settings] = await ask("workspace/configuration", { items: [{ section: "probe" }] });
      send({ id: message.id, result: { capabilities: { documentSymbolProvider: true } } });
      return;
    }
    case "textDocument/documentSymbol": {
      let wrote = "wrote";
      try {
        if (process.env.PROBE_WRITE) writeFileSync(process.env.PROBE_WRITE, "written by the language server\n");
      } catch (error) {
        wrote = error.code ?? "failed";
      }
      const env = process.env.PROBE_ENV ? (process.env[process.env.PROBE_ENV] === undefined ? "unset" : "set") : "-";
      const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
      const symbol = (name) => ({ name, kind: 13, range, selectionRange: range });
      send({
        id: message.id,
        result: [symbol(`write_${wrote}`), symbol(`env_${env}`), symbol(`settings_${JSON.stringify(settings)}`)],
      });
      return;
    }
    case "textDocument/didOpen":
    case "textDocument/didChange": {
      if (process.env.PROBE_SILENT) return;
      const { uri, version } = message.params.textDocument;
      const text = message.params.textDocument.text ?? message.params.contentChanges.at(-1).text;
      const diagnostics = text.split("\n").flatMap((line, n) => {
        const found = /(ERROR|WARN): (.*)/.exec(line);
        if (!found) return [];
        const range = { start: { line: n, character: found.index }, end: { line: n, character: line.length } };
        return [{ range, severity: found[1] === "ERROR" ? 1 : 2, source: "probe", code: "P1", message: found[2] }];
      });
      send({ method: "textDocument/publishDiagnostics", params: { uri, version, diagnostics } });
      return;
    }
    case "shutdown":
      send({ id: message.id, result: null });
      return;
    case "exit":
      process.exit(0);
      return;
    default:
      if (message.id !== undefined) send({ id: message.id, result: null });
  }
}

onMessages(handle);
