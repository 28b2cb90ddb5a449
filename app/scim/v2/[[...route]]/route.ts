import { gatewayRouteHandlers } from "@/lib/gateway/next-handler";

// The SCIM 2.0 service of the embedded gateway: identity providers call it with an integration's
// bearer token, so it is the gateway's own code, outside the console's sign-in.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = gatewayRouteHandlers;
