"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { Plus } from "lucide-react";
import { useState } from "react";
import { useForm } from "react-hook-form";
import type { z } from "zod";
import { FormDialogFooter } from "@/components/ui/dialog";
// This module is itself loaded on first use: Radix directly, with no second fetch on opening.
import { DialogContent, DialogRoot as Dialog } from "@/components/ui/dialog-parts";
import { Field, Input } from "@/components/ui/field";
import { gatewayFieldProblems } from "@/components/common/field-errors";
import { projectsPostRequestSchema } from "@/lib/contract/projects";
import { errorMessage } from "@/lib/query/fetcher";
import { GuardedButton } from "@/components/common/guarded-button";
import { useCreateProject } from "./use-project-mutations";

type FormInput = z.input<typeof projectsPostRequestSchema>;
type FormOutput = z.output<typeof projectsPostRequestSchema>;

export function CreateProjectDialog({ orgId, orgName, reason, defaultOpen = false }: { orgId: string; orgName: string; reason: string | null; defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen);
  const create = useCreateProject();
  const form = useForm<FormInput, unknown, FormOutput>({ resolver: zodResolver(projectsPostRequestSchema), defaultValues: { organization_id: orgId, name: "" } });
  const { errors } = form.formState;

  const onOpenChange = (next: boolean) => {
    if (!next) form.reset({ organization_id: orgId, name: "" });
    setOpen(next);
  };

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      await create.mutateAsync(values);
      onOpenChange(false);
    } catch (error) {
      const message = errorMessage(error);
      const status = (error as { status?: number }).status;
      const named = gatewayFieldProblems(message).find((p) => p.field === "name");
      form.setError(named ? "name" : "root", {
        type: "server",
        message: named?.message ?? (status === 403 ? `You may not create projects here: ${message}.` : message),
      });
    }
  });

  return (
    <>
      <GuardedButton reason={reason} onClick={() => setOpen(true)}>
        <Plus aria-hidden /> Create project
      </GuardedButton>
      <Dialog open={open} onOpenChange={onOpenChange}>
        <DialogContent title="Create project" description={`A new project in ${orgName}.`}>
          <form onSubmit={onSubmit} noValidate className="space-y-4">
            <Field label="Project name" htmlFor="create-project-name" hint="Unique in the organization; up to 255 characters." error={errors.name?.message}>
              <Input id="create-project-name" autoComplete="off" autoFocus {...form.register("name")} />
            </Field>
            {errors.root?.message ? (
              <p role="alert" className="text-sm text-red-600 dark:text-red-400">
                {errors.root.message}
              </p>
            ) : null}
            <FormDialogFooter onCancel={() => onOpenChange(false)} pending={create.isPending} submitLabel="Create" pendingLabel="Creating…" />
          </form>
        </DialogContent>
      </Dialog>
    </>
  );
}
