"use client";

import type { ApplyRoleBindingRequest } from "@/lib/contract/iam";
import { iamKeys, orgKeys, projectKeys } from "@/lib/query/keys";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { operationPath } from "@/lib/contract/operations";
import { errorMessage } from "@/lib/query/fetcher";
import { peopleKeys } from "@/lib/query/keys";
import { explainRefusal } from "./staged";

const count = (body: ApplyRoleBindingRequest) => body.bindings_to_create.length + body.bindings_to_delete.length;

/** POST /v1/iam/users/{user_id}/role-bindings: every staged change in one all-or-nothing call. */
export function useApplyBindings() {
  return useGatewayMutation<{ userId: string; body: ApplyRoleBindingRequest }>({
    request: ({ userId, body }) => ({ method: "POST", path: operationPath("applyRoleBindings", { user_id: userId }), body }),
    // Bindings decide who sees which project, and the caller's own permissions.
    invalidate: () => [iamKeys.all, projectKeys.all, orgKeys.all, peopleKeys.all],
    failure: (error) => {
      const status = (error as { status?: unknown }).status;
      return explainRefusal(typeof status === "number" ? status : undefined, errorMessage(error));
    },
    success: (_r, { body }) => `Applied ${count(body)} ${count(body) === 1 ? "change" : "changes"} to the role bindings`,
  });
}
