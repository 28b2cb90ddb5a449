import { describe, expect, it } from "vitest";
import { parseDatabaseUrl, urlForHost } from "./database-url";

describe("parseDatabaseUrl", () => {
  it("reads a formation's host list and target_session_attrs, as libpq does", () => {
    const parsed = parseDatabaseUrl("postgres://u:p%40ss@127.0.0.1:56101,127.0.0.1:56102/app?target_session_attrs=read-write&sslmode=disable");
    expect(parsed).toMatchObject({
      hosts: [
        { host: "127.0.0.1", port: 56101 },
        { host: "127.0.0.1", port: 56102 },
      ],
      targetSessionAttrs: "read-write",
      singleHostUrl: "postgres://u:p%40ss@127.0.0.1:56101/app?sslmode=disable",
    });
    expect(urlForHost(parsed!, { host: "127.0.0.1", port: 56102 })).toBe("postgres://u:p%40ss@127.0.0.1:56102/app?sslmode=disable");
  });

  it("defaults the port to 5432 and the attrs to any; keeps a single host as it is", () => {
    expect(parseDatabaseUrl("postgresql://db-a,db-b:6543/x")).toMatchObject({
      hosts: [
        { host: "db-a", port: 5432 },
        { host: "db-b", port: 6543 },
      ],
      targetSessionAttrs: "any",
    });
    expect(parseDatabaseUrl("postgres://u@[::1]:5433/x")).toMatchObject({ hosts: [{ host: "::1", port: 5433 }], singleHostUrl: "postgres://u@[::1]:5433/x" });
  });

  it("is null for what is not a postgres URL with hosts, and refuses attrs it cannot honour", () => {
    expect(parseDatabaseUrl("mysql://h/db")).toBeNull();
    expect(parseDatabaseUrl("postgres:///db")).toBeNull();
    expect(parseDatabaseUrl("postgres://h:99999/db")).toBeNull();
    expect(parseDatabaseUrl("postgres://h1:1,/db")).toBeNull();
    expect(() => parseDatabaseUrl("postgres://h1,h2/db?target_session_attrs=prefer-standby")).toThrow(/target_session_attrs/);
  });

  it("reads the hosts of a URL without any in its authority from the host and port parameters, as libpq does", () => {
    const parsed = parseDatabaseUrl("postgres://u@/app?host=db-a,%2Frun%2Fpostgresql,::1&port=5433,5434,5435&target_session_attrs=read-write&application_name=x");
    expect(parsed).toMatchObject({
      hosts: [
        { host: "db-a", port: 5433 },
        { host: "/run/postgresql", port: 5434 },
        { host: "::1", port: 5435 },
      ],
      targetSessionAttrs: "read-write",
      singleHostUrl: "postgres://u@db-a:5433/app?application_name=x",
    });
    expect(urlForHost(parsed!, parsed!.hosts[1]!)).toBe("postgres://u@%2Frun%2Fpostgresql:5434/app?application_name=x");
    // One port is every host's; none, 5432.
    expect(parseDatabaseUrl("postgres:///app?host=a,b&port=6000")?.hosts).toEqual([
      { host: "a", port: 6000 },
      { host: "b", port: 6000 },
    ]);
    expect(parseDatabaseUrl("postgres:///app?host=/run/postgresql")?.hosts).toEqual([{ host: "/run/postgresql", port: 5432 }]);
    // Ports that do not pair with the hosts are no list libpq would read.
    expect(parseDatabaseUrl("postgres:///app?host=a,b,c&port=1,2")).toBeNull();
  });

  it("refuses a writable session asked of a URL naming no host (node-postgres would go to localhost, libpq to its socket)", () => {
    expect(() => parseDatabaseUrl("postgres:///app?target_session_attrs=read-write")).toThrow(/target_session_attrs needs the hosts named/);
    expect(parseDatabaseUrl("postgres:///app?target_session_attrs=any")).toBeNull();
  });
});
