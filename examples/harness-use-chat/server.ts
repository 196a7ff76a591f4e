/** The route on plain Node http, for trying it without Next.js: POST /api/chat. */
import { createServer } from "node:http";
import { text } from "node:stream/consumers";
import { POST } from "./route";

const server = createServer(async (req, res) => {
  if (req.method !== "POST" || req.url !== "/api/chat") return void res.writeHead(404).end();
  const stop = new AbortController();
  // The client went away before the response ended (useChat's stop()): abort the turn.
  res.on("close", () => res.writableFinished || stop.abort());
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: await text(req),
    signal: stop.signal,
  });
  const response = await POST(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) for await (const chunk of response.body) res.write(chunk);
  res.end();
});

server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === "object" && address ? address.port : ""}/api/chat`);
});
