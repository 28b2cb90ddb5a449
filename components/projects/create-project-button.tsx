"use client";

import { Plus } from "lucide-react";
import { lazy } from "react";
import { OnFirstUse, type TriggerHandlers } from "@/components/ui/on-first-use";
import { GuardedButton } from "@/components/common/guarded-button";

// The dialog's form (react-hook-form, the contract's zod schema) is fetched on the first click.
const load = () => import("./create-project-dialog");
const CreateProjectDialog = lazy(() => load().then((m) => ({ default: m.CreateProjectDialog })));

/** "Create project", disabled with the reason when the caller may not; its dialog loads on first use. */
export function CreateProjectButton({ orgId, orgName, reason }: { orgId: string; orgName: string; reason: string | null }) {
  const trigger = (handlers: TriggerHandlers) => (
    <GuardedButton reason={reason} {...handlers}>
      <Plus aria-hidden /> Create project
    </GuardedButton>
  );
  if (reason) return trigger({});
  return <OnFirstUse trigger={trigger} preload={load} menu={<CreateProjectDialog orgId={orgId} orgName={orgName} reason={reason} defaultOpen />} />;
}
