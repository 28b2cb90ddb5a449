"use client";

import { Plus } from "lucide-react";
import type { TriggerHandlers } from "@/components/ui/on-first-use";
import { GuardedButton } from "@/components/common/guarded-button";
import { lazyDialog } from "@/components/common/lazy";

// The dialog's form (react-hook-form, the contract's zod schema) is fetched on the first click.
const ProjectDialog = lazyDialog(() => import("./create-project-dialog").then((m) => m.CreateProjectDialog));

/** "Create project", disabled with the reason when the caller may not; its dialog loads on first use. */
export function CreateProjectButton({ orgId, orgName, reason }: { orgId: string; orgName: string; reason: string | null }) {
  const trigger = (handlers: TriggerHandlers) => (
    <GuardedButton reason={reason} {...handlers}>
      <Plus aria-hidden /> Create project
    </GuardedButton>
  );
  return <ProjectDialog trigger={trigger} disabled={Boolean(reason)} orgId={orgId} orgName={orgName} reason={reason} />;
}
