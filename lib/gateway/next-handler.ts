import { embeddedGateway } from "./runtime";

/** Route handlers that serve the embedded gateway from the Next.js server. */
async function handle(request: Request): Promise<Response> {
  const gateway = await embeddedGateway();
  return gateway.app.fetch(request);
}

export const gatewayRouteHandlers = {
  GET: handle,
  POST: handle,
  PUT: handle,
  PATCH: handle,
  DELETE: handle,
  HEAD: handle,
  OPTIONS: handle,
};
