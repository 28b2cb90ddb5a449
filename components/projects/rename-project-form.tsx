"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useForm } from "react-hook-form";
import type { z } from "zod";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/field";
import { gatewayFieldProblems } from "@/components/common/field-errors";
import { projectsPutRequestSchema } from "@/lib/contract/projects";
import { errorMessage } from "@/lib/query/fetcher";
import { useRenameProject } from "./use-project-mutations";

type FormInput = z.input<typeof projectsPutRequestSchema>;
type FormOutput = z.output<typeof projectsPutRequestSchema>;

/** Renames in place: Enter saves, Escape cancels; the gateway's message shows under the field. */
export function RenameProjectForm({ project, onDone }: { project: { id: string; name: string }; onDone: () => void }) {
  const rename = useRenameProject();
  const form = useForm<FormInput, unknown, FormOutput>({ resolver: zodResolver(projectsPutRequestSchema), defaultValues: { name: project.name } });
  const error = form.formState.errors.name?.message;
  const errorId = `rename-${project.id}-error`;

  const onSubmit = form.handleSubmit(async ({ name }) => {
    if (name === project.name) return onDone();
    try {
      await rename.mutateAsync({ projectId: project.id, name });
      onDone();
    } catch (e) {
      const message = errorMessage(e);
      const status = (e as { status?: number }).status;
      const named = gatewayFieldProblems(message).find((p) => p.field === "name");
      form.setError("name", { type: "server", message: named?.message ?? (status === 403 ? `You may not rename this project: ${message}.` : message) });
    }
  });

  return (
    <form
      onSubmit={onSubmit}
      noValidate
      aria-label={`Rename ${project.name}`}
      className="flex min-w-64 flex-col gap-1"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          onDone();
        }
      }}
    >
      <div className="flex items-center gap-2">
        <Input
          aria-label={`New name for ${project.name}`}
          autoFocus
          autoComplete="off"
          density="compact"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          {...form.register("name")}
        />
        <Button type="submit" size="sm" waiting={rename.isPending}>
          {rename.isPending ? "Saving…" : "Save"}
        </Button>
        <Button type="button" size="sm" variant="ghost" onClick={onDone}>
          Cancel
        </Button>
      </div>
      {error ? (
        <p id={errorId} role="alert" className="whitespace-normal text-xs text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </form>
  );
}
