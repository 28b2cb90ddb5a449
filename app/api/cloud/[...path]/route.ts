import { handleCloudRequest } from "@/lib/console/bff";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

function handle(request: Request): Promise<Response> {
  return handleCloudRequest(request);
}

export { handle as GET, handle as POST, handle as PUT, handle as PATCH, handle as DELETE };
