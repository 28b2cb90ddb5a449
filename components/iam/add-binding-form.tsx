"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { AlertTriangle, Plus } from "lucide-react";
import { useForm, useWatch } from "react-hook-form";
import type { z } from "zod";
import { Button } from "@/components/ui/button";
import { Field, Select } from "@/components/ui/field";
import { roleBindingInputSchema } from "@/lib/contract/iam";
import type { IamContext } from "./use-iam-context";

const additionSchema = roleBindingInputSchema.omit({ customer_id: true });
type AdditionInput = z.input<typeof additionSchema>;
export type Addition = z.output<typeof additionSchema>;

interface AddBindingFormProps {
  ctx: IamContext;
  orgId: string;
  disabled: boolean;
  /** Returns why the addition cannot be staged (a duplicate), or null once staged. */
  onStage: (addition: Addition) => string | null;
}

/**
 * Picks a role and where to bind it. A scope the role does not allow is warned
 * about but can be staged: the gateway is the judge, and the apply says which
 * change it refused.
 */
export function AddBindingForm({ ctx, orgId, disabled, onStage }: AddBindingFormProps) {
  const form = useForm<AdditionInput, unknown, Addition>({
    resolver: zodResolver(additionSchema),
    defaultValues: { role_id: "", scope_type: "project", scope_object_id: "" },
  });
  const { errors } = form.formState;
  const roleId = useWatch({ control: form.control, name: "role_id" });
  const scopeType = useWatch({ control: form.control, name: "scope_type" });
  const role = ctx.orgRoles.find((r) => r.id === roleId);
  const scopeRefused = role && scopeType && !role.allowed_scopes.includes(scopeType);
  const scopeTypeField = form.register("scope_type");

  const onSubmit = form.handleSubmit((addition) => {
    const problem = onStage(addition);
    if (problem) form.setError("root", { type: "duplicate", message: problem });
    else form.reset({ role_id: addition.role_id, scope_type: addition.scope_type, scope_object_id: addition.scope_type === "org" ? orgId : "" });
  });

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Stage an addition" className="space-y-3">
      <fieldset disabled={disabled} className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4 lg:items-start">
        <Field
          label="Role"
          htmlFor="add-role"
          error={errors.role_id ? "choose a role" : undefined}
          hint={role ? `Allowed at: ${role.allowed_scopes.join(", ")}` : undefined}
        >
          <Select id="add-role" {...form.register("role_id")}>
            <option value="">Choose a role…</option>
            {ctx.orgRoles.map((r) => (
              <option key={r.id} value={r.id}>
                {r.role_name}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Scope type" htmlFor="add-scope-type" error={errors.scope_type?.message}>
          <Select
            id="add-scope-type"
            {...scopeTypeField}
            onChange={(e) => {
              void scopeTypeField.onChange(e);
              form.setValue("scope_object_id", e.target.value === "org" ? orgId : "");
            }}
          >
            <option value="project">project</option>
            <option value="org">org</option>
          </Select>
        </Field>
        <Field label="Scope" htmlFor="add-scope" error={errors.scope_object_id ? `choose the ${scopeType === "org" ? "organization" : "project"}` : undefined}>
          <Select id="add-scope" {...form.register("scope_object_id")}>
            {scopeType === "org" ? (
              <option value={orgId}>{ctx.orgName}</option>
            ) : (
              <>
                <option value="">Choose a project…</option>
                {ctx.orgProjects.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </>
            )}
          </Select>
        </Field>
        <div className="lg:pt-6">
          <Button type="submit" variant="secondary" className="w-full lg:w-auto">
            <Plus aria-hidden /> Stage addition
          </Button>
        </div>
      </fieldset>
      {scopeRefused ? (
        <p className="flex items-center gap-1.5 text-xs text-amber-700 dark:text-amber-400">
          <AlertTriangle className="size-3.5 shrink-0" aria-hidden />
          {role.role_name} can be bound only at {role.allowed_scopes.join(" or ")} scope; the gateway will refuse this change.
        </p>
      ) : null}
      {errors.root?.message ? (
        <p role="alert" className="text-xs text-red-600 dark:text-red-400">
          {errors.root.message}
        </p>
      ) : null}
    </form>
  );
}
