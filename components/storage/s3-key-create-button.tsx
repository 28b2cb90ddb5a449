"use client";

import { lazy } from "react";
import { Button } from "@/components/ui/button";
import { OnFirstUse, type TriggerHandlers } from "@/components/ui/on-first-use";

// The dialog's form (react-hook-form, the contract's zod schema) is fetched on the first click.
const load = () => import("./s3-key-create-dialog");
const CreateS3KeyButton = lazy(() => load().then((m) => ({ default: m.CreateS3KeyButton })));

/** "New key"; its dialog loads on first use. */
export function NewS3KeyButton({ orgId }: { orgId: string }) {
  const trigger = (handlers: TriggerHandlers) => <Button {...handlers}>New key</Button>;
  return <OnFirstUse trigger={trigger} preload={load} menu={<CreateS3KeyButton orgId={orgId} defaultOpen />} />;
}
