import type { NextConfig } from "next";
import { STATIC_SECURITY_HEADERS } from "./lib/security-headers";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // PGlite ships WebAssembly and data files that must be loaded from node_modules as-is.
  serverExternalPackages: ["@electric-sql/pglite", "pg"],
  typedRoutes: false,
  turbopack: {
    resolveAlias: {
      // Each area's URL state is defined once (components/<area>/search-params.ts), with nuqs/server's
      // parsers so that the page's server-side loader can use it too. nuqs/server is a bundle of its
      // own that repeats the parsers nuqs already ships to the browser for useQueryStates: in the
      // browser bundle the same parsers come from nuqs itself (about 2 KB less on every such page).
      "nuqs/server": { browser: "nuqs" },
    },
  },
  headers: async () => [{ source: "/:path*", headers: STATIC_SECURITY_HEADERS }],
};

export default nextConfig;
