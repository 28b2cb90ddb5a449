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
 * Picks a role and where to bind it: only the scope types the role allows are offered
 * (choosing a role moves the scope type to one it allows), so no change is staged that
 * the gateway is known to refuse.
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
  const allowed = (role?.allowed_scopes ?? ["project", "org"]).filter((s): s is "project" | "org" => s === "project" || s === "org");
  const scopeRefused = role && scopeType && !role.allowed_scopes.includes(scopeType);
  const scopeTypeField = form.register("scope_type");
  const roleField = form.register("role_id");

  const onSubmit = form.handleSubmit((addition) => {
    const chosen = ctx.orgRoles.find((r) => r.id === addition.role_id);
    if (chosen && !chosen.allowed_scopes.includes(addition.scope_type)) {
      form.setError("root", { type: "scope", message: `${chosen.role_name} cannot be granted at ${addition.scope_type} scope.` });
      return;
    }
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
          <Select
            id="add-role"
            {...roleField}
            onChange={(e) => {
              void roleField.onChange(e);
              const next = ctx.orgRoles.find((r) => r.id === e.target.value);
              const current = form.getValues("scope_type");
              if (next && !next.allowed_scopes.includes(current)) {
                const scope = next.allowed_scopes.includes("project") ? "project" : "org";
                form.setValue("scope_type", scope);
                form.setValue("scope_object_id", scope === "org" ? orgId : "");
              }
            }}
          >
            <option value="">Choose a role…</option>
            {ctx.orgRoles.map((r) => (
              <option key={r.id} value={r.id}>
                {r.role_name}
              </option>
            ))}
          </Select>
        </Field>
        <Field
          label="Scope type"
          htmlFor="add-scope-type"
          error={errors.scope_type?.message}
          hint={role && allowed.length === 1 ? `${role.role_name} can be granted only ${allowed[0] === "org" ? "across the organization" : "on a project"}.` : undefined}
        >
          <Select
            id="add-scope-type"
            {...scopeTypeField}
            onChange={(e) => {
              void scopeTypeField.onChange(e);
              form.setValue("scope_object_id", e.target.value === "org" ? orgId : "");
            }}
          >
            {allowed.includes("project") ? <option value="project">project</option> : null}
            {allowed.includes("org") ? <option value="org">org</option> : null}
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
          {role.role_name} can be granted only {role.allowed_scopes.map((s) => (s === "org" ? "across the organization" : "on a project")).join(" or ")}; choose another scope.
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
