/**
 * Which addresses a client fetch may reach. Only an address that is provably public is: anything
 * in a loopback, private, link-local, shared, documentation, benchmark, multicast or reserved
 * range is refused, IPv4-mapped and IPv4-embedding IPv6 forms are judged by (or refused for)
 * the IPv4 address inside, and any IPv6 address outside global unicast (2000::/3) is refused. A
 * string that is not an IP address is not public either: fail closed.
 */
import type { BlockList } from "node:net";
import { lazyRequire } from "../_kits/lazy/index";

// node:net on the first check: an ESM import of it (and this module's block list, built at its
// import) cost every run, fetching or not, ~3 ms of its cold start (bench/lean-profile.md).
const net = lazyRequire<typeof import("node:net")>("node:net");

const V4_NOT_PUBLIC: [string, number][] = [
  ["0.0.0.0", 8], // "this network" (0.0.0.0 reaches the host itself on Linux)
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local (cloud metadata at 169.254.169.254)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and 255.255.255.255
];

// Inside 2000::/3, the special ranges: Teredo and other IETF assignments, ORCHIDs, documentation,
// 6to4 (which embeds an IPv4 address that could be private), and the newer documentation prefix.
const V6_NOT_PUBLIC: [string, number][] = [
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["3fff::", 20],
];

let blockList: BlockList | undefined;

/** The ranges above as a block list, built on first use. */
function blocked(): BlockList {
  if (blockList) return blockList;
  const list = new (net().BlockList)();
  for (const [range, prefix] of V4_NOT_PUBLIC) list.addSubnet(range, prefix, "ipv4");
  for (const [range, prefix] of V6_NOT_PUBLIC) list.addSubnet(range, prefix, "ipv6");
  return (blockList = list);
}

/** The 16 bytes of an IPv6 address (dotted IPv4 tail included), or undefined when it does not parse. */
function ipv6Bytes(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, "");
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const v4 = tail[1]!.split(".").map(Number);
    text = `${text.slice(0, -tail[1]!.length)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const words = (s: string) => (s === "" ? [] : s.split(":"));
  const head = words(halves[0]!);
  const rest = halves.length === 2 ? words(halves[1]!) : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const all = [...head, ...Array<string>(Math.max(0, fill)).fill("0"), ...rest];
  if (all.length !== 8 || all.some((w) => !/^[0-9a-f]{1,4}$/i.test(w))) return undefined;
  return all.flatMap((w) => {
    const n = parseInt(w, 16);
    return [n >> 8, n & 0xff];
  });
}

/** Why `address` is not a public address, or undefined when it is one. */
export function nonPublicReason(address: string): string | undefined {
  const bare = address.replace(/^\[(.*)\]$/, "$1");
  const family = net().isIP(bare);
  if (family === 4)
    return blocked().check(bare, "ipv4")
      ? `${bare} is a loopback, private, link-local or reserved IPv4 address`
      : undefined;
  if (family !== 6) return `${address} is not an IP address`;
  const bytes = ipv6Bytes(bare);
  if (!bytes) return `${address} is not an IPv6 address this check understands`;
  const zeros = (n: number) => bytes.slice(0, n).every((b) => b === 0);
  // ::ffff:a.b.c.d (IPv4-mapped) and ::ffff:0:a.b.c.d (IPv4-translated) reach the IPv4 address inside.
  if (
    (zeros(10) && bytes[10] === 0xff && bytes[11] === 0xff) ||
    (zeros(8) && bytes[8] === 0xff && bytes[9] === 0xff && bytes[10] === 0 && bytes[11] === 0)
  ) {
    const inner = bytes.slice(12).join(".");
    const why = nonPublicReason(inner);
    return why ? `${bare} maps to ${inner}: ${why}` : undefined;
  }
  // Global unicast only: ::, ::1, IPv4-compatible, NAT64 (64:ff9b::/96), ULA (fc00::/7),
  // link-local (fe80::/10), site-local and multicast all fall outside 2000::/3.
  if ((bytes[0]! & 0xe0) !== 0x20)
    return `${bare} is not a global unicast IPv6 address (loopback, link-local, unique-local, multicast or reserved)`;
  const groups: string[] = [];
  for (let i = 0; i < bytes.length; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  const canonical = groups.join(":");
  return blocked().check(canonical, "ipv6")
    ? `${bare} is in a special-purpose IPv6 range (6to4, Teredo, documentation)`
    : undefined;
}

/** True when `address` is a public IP address. */
export function isPublicAddress(address: string): boolean {
  return nonPublicReason(address) === undefined;
}
