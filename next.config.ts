import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // PGlite ships WebAssembly and data files that must be loaded from node_modules as-is.
  serverExternalPackages: ["@electric-sql/pglite", "pg"],
  typedRoutes: false,
};

export default nextConfig;
