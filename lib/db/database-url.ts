/**
 * Multi-host connection strings, as libpq reads them
 * (`postgres://user@h1:5432,h2:5432/db?target_session_attrs=read-write`): node-postgres
 * reads one host only. No imports, so the environment check can use it too.
 */

export interface Host {
  host: string;
  port: number;
}

export type SessionAttrs = "any" | "read-write";

export interface ParsedUrl {
  hosts: Host[];
  targetSessionAttrs: SessionAttrs;
  /** The same URL naming only the first host and without libpq's own parameters: what node-postgres parses. */
  singleHostUrl: string;
  /** `scheme://userinfo@` and `/db?query` around the host list, for `urlForHost`. */
  before: string;
  after: string;
}

/** Whether a host is a Unix socket's directory (libpq: a host starting with a slash), not a network host. */
export function isSocketDir(host: Host): boolean {
  return host.host.startsWith("/");
}

/** The socket file of a Unix-socket host: the server's, in that directory, named by the port as libpq names it. */
export function socketPath(host: Host): string {
  return `${host.host.replace(/\/+$/, "")}/.s.PGSQL.${host.port}`;
}

/** The URL of one host of the list (node-postgres takes a connection string's host over any other setting). */
export function urlForHost(parsed: ParsedUrl, host: Host): string {
  const name = isSocketDir(host) ? encodeURIComponent(host.host) : host.host.includes(":") ? `[${host.host}]` : host.host;
  return `${parsed.before}${name}:${host.port}${parsed.after}`;
}

const SESSION_ATTRS: readonly string[] = ["any", "read-write"];

/** Splits a postgres:// URL's host list; null when the text is not such a URL. Throws on a value it cannot honour. */
export function parseDatabaseUrl(url: string): ParsedUrl | null {
  const match = /^(postgres(?:ql)?:\/\/)([^/?#]*)(.*)$/i.exec(url);
  if (!match) return null;
  const [, scheme = "", authority = "", rest = ""] = match;
  const at = authority.lastIndexOf("@");
  const userinfo = at === -1 ? "" : authority.slice(0, at + 1);
  const hostPart = authority.slice(at + 1);
  const q = rest.indexOf("?");
  const path = q === -1 ? rest : rest.slice(0, q);
  const params = new URLSearchParams(q === -1 ? "" : rest.slice(q + 1));
  // No host in the authority: libpq reads them from the `host` parameter (`postgres:///db?host=/run/postgresql`), a
  // list as the authority's is, each with the `port` parameter's port of the same place (one port: every host's).
  let entries: string[];
  if (hostPart) {
    entries = hostPart.split(",");
  } else {
    const listed = params.get("host");
    if (listed === null || listed === "") {
      // The server node-postgres then reaches (localhost, or PGHOST) is not libpq's (its socket directory): a writable
      // session cannot be looked for among hosts not named.
      if ((params.get("target_session_attrs") ?? "any") !== "any") {
        throw new Error("target_session_attrs needs the hosts named: in the URL (postgres://user@h1:5432,h2:5432/db) or as host=");
      }
      return null;
    }
    const names = listed.split(",");
    const ports = (params.get("port") ?? "").split(",").filter((p) => p !== "");
    if (ports.length > 1 && ports.length !== names.length) return null;
    // Written as the authority would hold them: the parameters' values are decoded already.
    entries = names.map((name, i) => {
      const written = name.includes(":") && !name.startsWith("/") ? `[${name}]` : encodeURIComponent(name);
      const port = ports.length === 0 ? undefined : (ports[ports.length === 1 ? 0 : i] ?? undefined);
      return port === undefined ? written : `${written}:${port}`;
    });
    params.delete("host");
    params.delete("port");
  }
  const hosts: Host[] = [];
  for (const entry of entries) {
    const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry);
    if (!m) return null;
    const port = m[2] === undefined ? 5432 : Number(m[2]);
    if (port < 1 || port > 65_535) return null;
    // Percent-encoded, as a URL's host may be (a Unix socket's directory: %2Frun%2Fpostgresql).
    let host: string;
    try {
      host = decodeURIComponent((m[1] ?? "").replace(/^\[(.*)\]$/, "$1"));
    } catch {
      return null;
    }
    hosts.push({ host, port });
  }
  const attrs = params.get("target_session_attrs") ?? "any";
  if (!SESSION_ATTRS.includes(attrs)) {
    throw new Error(`target_session_attrs=${attrs} is not supported: use any or read-write`);
  }
  params.delete("target_session_attrs");
  // libpq uses no TLS over a Unix socket whatever sslmode says; node-postgres would ask the server for it there, which
  // PostgreSQL always refuses, and every connection would fail. Said now, plainly, rather than as a store away.
  const socketHost = hosts.find((h) => h.host.startsWith("/"));
  const sslmode = params.get("sslmode");
  if (socketHost && ((sslmode !== null && sslmode !== "disable") || params.has("ssl"))) {
    throw new Error(`the Unix socket ${socketHost.host} takes no TLS: list it in a DATABASE_URL without sslmode (or with sslmode=disable), or name the node by its network address`);
  }
  const query = params.toString();
  const parsed: ParsedUrl = {
    hosts,
    targetSessionAttrs: attrs as SessionAttrs,
    singleHostUrl: "",
    before: `${scheme}${userinfo}`,
    after: `${path}${query ? `?${query}` : ""}`,
  };
  parsed.singleHostUrl = urlForHost(parsed, hosts[0]!);
  return parsed;
}
