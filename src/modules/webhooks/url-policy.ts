// Which webhook URLs Assay will call: http(s) only, never link-local or cloud metadata addresses (SSRF guard).
// Other private addresses stay allowed: on-premises receivers on 10.x or 192.168.x are the normal case.
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/** Hostnames that resolve to an instance metadata service on common clouds. */
const METADATA_HOSTS = new Set(["metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"]);

/** Metadata addresses outside 169.254.0.0/16: Alibaba Cloud's, and AWS's IPv6 IMDS. */
const METADATA_IPS = new Set(["100.100.100.200", "fd00:ec2::254"]);

function ipv4Octets(ip: string): number[] | null {
  const parts = ip.split(".");
  if (parts.length !== 4) return null;
  const octets = parts.map(Number);
  return octets.every((o, i) => /^\d{1,3}$/.test(parts[i]) && o <= 255) ? octets : null;
}

/** Eight 16-bit groups of an IPv6 address (with :: and a trailing dotted IPv4 expanded), or null. */
function ipv6Groups(ip: string): number[] | null {
  let text = ip.toLowerCase();
  const zone = text.indexOf("%");
  if (zone !== -1) text = text.slice(0, zone);
  const lastColon = text.lastIndexOf(":");
  const tail = text.slice(lastColon + 1);
  if (tail.includes(".")) {
    const o = ipv4Octets(tail);
    if (!o) return null;
    text = `${text.slice(0, lastColon + 1)}${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)));
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const groups = [...head, ...Array(Math.max(fill, 0)).fill(0), ...rest];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g)) ? groups : null;
}

/** True for 169.254.0.0/16, fe80::/10, IPv4-mapped, NAT64 and 6to4 forms of those, and known metadata addresses. */
export function isForbiddenAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, "");
  if (METADATA_IPS.has(bare.toLowerCase())) return true;
  const v4 = ipv4Octets(bare);
  if (v4) return v4[0] === 169 && v4[1] === 254;
  const g = ipv6Groups(bare);
  if (!g) return false;
  if ((g[0] & 0xffc0) === 0xfe80) return true;
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) return true;
  const v4At = (hi: number, lo: number) => isForbiddenAddress(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible) reach the IPv4 address
  const mapped = g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0);
  if (mapped) return v4At(g[6], g[7]);
  // NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48) translates the last 32 bits to IPv4.
  if (g[0] === 0x64 && g[1] === 0xff9b && (g.slice(2, 6).every((x) => x === 0) || g[2] === 1)) return v4At(g[6], g[7]);
  // 6to4 (2002::/16) carries an IPv4 address in its second and third groups.
  if (g[0] === 0x2002) return v4At(g[1], g[2]);
  return false;
}

const allowedLists = new Map<string, BlockList>();

/**
 * ASSAY_WEBHOOK_ALLOWED_NETWORKS as a list of allowed subnets (built once per setting), or null when unset: then every
 * address but link-local and metadata ones is allowed (on-premises receivers are the normal case).
 */
function allowedList(cidrs: readonly string[] | null): BlockList | null {
  if (!cidrs || cidrs.length === 0) return null;
  const key = cidrs.join(",");
  let list = allowedLists.get(key);
  if (!list) {
    list = new BlockList();
    for (const cidr of cidrs) {
      const [address, prefix] = cidr.split("/");
      const family = isIP(address) === 6 ? "ipv6" : "ipv4";
      list.addSubnet(address, Number(prefix ?? (family === "ipv6" ? 128 : 32)), family);
    }
    allowedLists.set(key, list);
  }
  return list;
}

/** True when an operator restricted webhook targets and `ip` is outside every allowed network. */
function outsideAllowed(ip: string, cidrs: readonly string[] | null): boolean {
  const list = allowedList(cidrs);
  if (!list) return false;
  const bare = ip.replace(/^\[|\]$/g, "");
  return !list.check(bare, isIP(bare) === 6 ? "ipv6" : "ipv4");
}

const OUTSIDE = "url points outside the networks this server may call (ASSAY_WEBHOOK_ALLOWED_NETWORKS)";

/**
 * Why a URL is refused (a message for the API caller), or null when it is acceptable. Checks the text only: a host
 * name is checked against `allowed` networks after DNS, at send time.
 */
export function urlProblem(raw: string, allowed: readonly string[] | null = null): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "url is not a valid absolute URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "url must use http or https";
  // (Credentials in a URL would be kept and shown in every listing: the signature is how a receiver knows the sender.)
  if (url.username || url.password) return "url must not carry a user name or password; verify the X-Service-Signature header instead";
  // WHATWG parsing already turned decimal/hex/short IPv4 forms (http://2852039166/) into dotted quads.
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (!host) return "url has no host";
  if (METADATA_HOSTS.has(host) || isForbiddenAddress(host)) {
    return "url points at a link-local or cloud metadata address, which webhooks never call";
  }
  if (isIP(host.replace(/^\[|\]$/g, "")) && outsideAllowed(host, allowed)) return OUTSIDE;
  return null;
}

export type Resolve = (host: string) => Promise<{ address: string; family: number }[]>;

const systemResolve: Resolve = (host) => lookup(host, { all: true });

/**
 * The same rule at send time, after DNS, and where to connect: `{ problem }` when the URL must not be called, else
 * `{ urls, host? }`, to be tried in order until one connects. For plain HTTP there is one URL per address just
 * checked, pinned to it (with the original Host header), so a second lookup by fetch cannot be steered elsewhere (DNS
 * rebinding), and a host whose first address is unusable (an IPv6 address without a route) is still reached by the
 * next. HTTPS keeps its name, since TLS must verify it and a metadata service does not speak TLS. A failed lookup is
 * left to fetch to report.
 */
export async function deliveryTarget(
  raw: string,
  timeoutMs: number,
  resolve: Resolve = systemResolve,
  allowed: readonly string[] | null = null,
): Promise<{ problem: string } | { urls: string[]; host?: string }> {
  const textual = urlProblem(raw, allowed);
  if (textual) return { problem: textual };
  const url = new URL(raw);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) return { urls: [raw] };
  let addresses: { address: string; family: number }[];
  try {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("dns timeout")), timeoutMs);
    });
    addresses = await Promise.race([resolve(host), timeout]).finally(() => clearTimeout(timer));
  } catch {
    // fetch will fail with its own connection error, the more useful message; under a restriction, refuse instead.
    return allowedList(allowed) ? { problem: "url's host could not be resolved" } : { urls: [raw] };
  }
  if (addresses.some((a) => isForbiddenAddress(a.address))) return { problem: "url resolves to a link-local or cloud metadata address" };
  if (addresses.some((a) => outsideAllowed(a.address, allowed))) return { problem: OUTSIDE.replace("points", "resolves") };
  if (url.protocol !== "http:" || addresses.length === 0) return { urls: [raw] };
  const urls = addresses.map((a) => {
    const pinned = new URL(raw);
    pinned.hostname = a.family === 6 ? `[${a.address}]` : a.address;
    return pinned.toString();
  });
  return { urls: [...new Set(urls)], host: url.host };
}
