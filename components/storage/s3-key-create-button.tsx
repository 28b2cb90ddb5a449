"use client";

import { Button } from "@/components/ui/button";
import type { TriggerHandlers } from "@/components/ui/on-first-use";
import { lazyDialog } from "@/components/common/lazy";
import type { S3Connection } from "./s3-connection";

// The dialog's form (react-hook-form, the contract's zod schema) is fetched on the first click.
const S3KeyDialog = lazyDialog(() => import("./s3-key-create-dialog").then((m) => m.CreateS3KeyDialog));

const trigger = (handlers: TriggerHandlers) => <Button {...handlers}>New key</Button>;

/** "New key"; its dialog loads on first use. */
export function CreateS3KeyButton({ orgId, connection }: { orgId: string; connection: S3Connection }) {
  return <S3KeyDialog trigger={trigger} orgId={orgId} connection={connection} />;
}
