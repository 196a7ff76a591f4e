/**
 * Faults for tests of the Postgres store, injected into a real server: a connection reset at a
 * note's insert (a trigger), and a TCP proxy that drops exactly the answer to one statement.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * Every insert of a note whose kind is in the table `fault_notes` has its connection ended by the
 * server (a real reset, in the statement: it does not commit). Run on a migrated database; insert
 * the kinds to cut into `fault_notes`.
 */
export const CUT_NOTES_SQL = `
  create table fault_notes (kind text primary key);
  create function cut_note() returns trigger language plpgsql as $$
  begin
    if new.kind = 'note' and exists (select 1 from fault_notes where kind = new.body->>'kind') then
      perform pg_terminate_backend(pg_backend_pid());
      raise exception 'terminating connection due to administrator command' using errcode = 'admin_shutdown';
    end if;
    return new;
  end $$;
  create trigger cut_note before insert on ubiquity_records for each row execute function cut_note();`;

/**
 * A proxy to the server that forwards everything but the answer to the first statement carrying
 * `marker`: that connection is reset instead (the statement ran). With `downAfterResend`, the
 * next statement carrying `marker` (its re-send) is answered and then the proxy goes down,
 * refusing every connection until `up()`.
 */
export async function cuttingProxy(upstreamPort: number, marker: string, { downAfterResend = true } = {}) {
  let seen = 0;
  let down = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on("error", () => {});
    client.on("close", () => sockets.delete(client));
    if (down) return void client.resetAndDestroy();
    const upstream = connect(upstreamPort, "127.0.0.1");
    sockets.add(upstream);
    upstream.on("error", () => {});
    let cutAnswer = false;
    let lastAnswer = false;
    client.on("data", (chunk) => {
      if (down) return void client.resetAndDestroy();
      if (chunk.includes(marker)) {
        seen++;
        if (seen === 1) cutAnswer = true;
        else lastAnswer = downAfterResend;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (cutAnswer) {
        // The server ran the append (this is its answer): the client never hears of it.
        client.resetAndDestroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
      if (lastAnswer) down = true;
    });
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    seen: () => seen,
    up: () => void (down = false),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `url` with the proxy's port: the same database, through the proxy. */
export function throughProxy(url: string, proxy: { port: number }): string {
  const via = new URL(url);
  via.port = String(proxy.port);
  return via.toString();
}
