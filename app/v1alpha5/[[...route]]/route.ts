import { gatewayRouteHandlers } from "@/lib/gateway/next-handler";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = gatewayRouteHandlers;
