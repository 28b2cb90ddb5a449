"use client";

import { Lock } from "lucide-react";
import { useRouter } from "next/navigation";
import { useRef, useState, type FormEvent } from "react";
import type { z } from "zod";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field, Input, Select } from "@/components/ui/field";
import { ErrorState } from "@/components/ui/states";
import type { EntitiesPutPostRequest, entitiesPutPostResponseSchema, Entity } from "@/lib/contract/organizations";
import { orgKeys } from "@/lib/query/keys";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { errorMessage } from "@/lib/query/fetcher";
import { gatewayFieldProblems } from "@/components/common/field-errors";
import { clearErrorOnChange, formValues, validData, type FieldErrors } from "@/components/common/native-form";
import { ADDRESS_FIELDS, SETTINGS_FIELDS, toFormValues } from "./settings-form";
import type { SettingsFormInput } from "./settings-schema";

// The rules (zod and the contract's schemas) are fetched when the form is first focused or sent.
const loadSchema = () => import("./settings-schema");

/** The form's values in the schema's shape: every field a string, the address as one object. */
function readSettings(form: HTMLFormElement): SettingsFormInput {
  const v = formValues(form);
  return {
    organization_name: v.organization_name ?? "",
    company_name: v.company_name ?? "",
    tax_id: v.tax_id ?? "",
    tax_id_type: (v.tax_id_type ?? "") as SettingsFormInput["tax_id_type"],
    billing_addr: Object.fromEntries(ADDRESS_FIELDS.map((f) => [f.name, v[`billing_addr.${f.name}`] ?? ""])) as SettingsFormInput["billing_addr"],
  };
}
import { useOrg } from "@/components/common/use-org";
import { QueryState } from "@/components/ui/query-state";
import { operationPath } from "@/lib/contract/operations";

type UpdateResponse = z.infer<typeof entitiesPutPostResponseSchema>;

export function OrganizationSettings({ orgId }: { orgId: string }) {
  const { state, entity, access } = useOrg(orgId);
  return (
    <QueryState state={state} what="the organization's settings" label="organization settings" lines={6} frame={(node) => <Card>{node}</Card>}>
      {() =>
        entity ? (
          // Keyed by the entity so a saved answer re-seeds the form's defaults.
          <SettingsForm key={`${entity.id}:${JSON.stringify(toFormValues(entity))}`} entity={entity} canEdit={access.isOwner} />
        ) : (
          <Card>
            <ErrorState error={{ status: 403, message: "This organization is not among yours" }} what="this organization" />
          </Card>
        )
      }
    </QueryState>
  );
}

function SettingsForm({ entity, canEdit }: { entity: Entity; canEdit: boolean }) {
  const router = useRouter();
  const [submitError, setSubmitError] = useState<string | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [dirty, setDirty] = useState(false);
  const defaults = toFormValues(entity);

  const update = useGatewayMutation<EntitiesPutPostRequest, UpdateResponse>({
    request: (body) => ({ method: "PUT", path: operationPath("updateOrganization"), query: { org_id: entity.id }, body }),
    invalidate: () => [orgKeys.all],
    success: (r) => `Settings of ${r.entity.name} saved`,
    // The shell's organization name comes from the server.
    onSuccess: () => router.refresh(),
  });

  // Set from the submit until its call settles: a second submit while the rules load would send the settings twice.
  const submitting = useRef(false);
  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (submitting.current) return;
    submitting.current = true;
    const form = e.currentTarget;
    setSubmitError(null);
    try {
      const { settingsFormSchema, toRequest } = await loadSchema();
      const data = validData(form, settingsFormSchema(entity.billing_addr !== undefined).safeParse(readSettings(form)), setErrors);
      if (!data) return;
      await update.mutateAsync(toRequest(data));
    } catch (error) {
      const message = errorMessage(error);
      setErrors(Object.fromEntries(gatewayFieldProblems(message).filter((p) => SETTINGS_FIELDS.has(p.field)).map((p) => [p.field, p.message])));
      const status = (error as { status?: number }).status;
      setSubmitError(status === 403 ? `Only an owner of ${entity.name} can change its settings (${message}).` : `Nothing was saved: ${message}`);
    } finally {
      submitting.current = false;
    }
  };

  return (
    <form
      onSubmit={(e) => void onSubmit(e)}
      onFocus={() => void loadSchema().catch(() => undefined)}
      onChange={(e) => {
        setDirty(true);
        clearErrorOnChange(errors, setErrors)(e);
      }}
      onReset={() => (setDirty(false), setErrors({}), setSubmitError(null))}
      noValidate
      aria-label="Organization settings"
      className="space-y-6"
    >
      {!canEdit ? <ReadOnlyNote entity={entity} /> : null}
      <fieldset disabled={!canEdit || update.isPending} className="space-y-6">
        <OrganizationCard entity={entity} defaults={defaults} errors={errors} />
        <TaxCard defaults={defaults} errors={errors} />
        <AddressCard defaults={defaults} errors={errors} />
      </fieldset>

      {submitError ? (
        <p role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200">
          {submitError}
        </p>
      ) : null}

      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" disabled={!canEdit || update.isPending}>
          {update.isPending ? "Saving…" : "Save changes"}
        </Button>
        <Button type="reset" variant="secondary" disabled={!canEdit || !dirty || update.isPending}>
          Discard changes
        </Button>
        {!canEdit ? <span className="text-sm text-slate-500 dark:text-slate-400">Saving needs the owner relation.</span> : null}
      </div>
    </form>
  );
}

function ReadOnlyNote({ entity }: { entity: Entity }) {
  return (
    <div role="note" className="flex gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
      <Lock className="mt-0.5 size-4 shrink-0" aria-hidden />
      <p>
        Read-only: only owners of {entity.name} can change these settings. You are a {entity.relation} of this organization.
      </p>
    </div>
  );
}

/** The names, and what the caller cannot change: id, type, state, relation. */
function OrganizationCard({ entity, defaults, errors }: { entity: Entity; defaults: SettingsFormInput; errors: FieldErrors }) {
  return (
    <Card>
      <CardHeader title="Organization" description="How the organization is named across the console." />
      <CardBody className="grid gap-4 sm:grid-cols-2">
        <Field label="Organization name" htmlFor="organization_name" error={errors.organization_name}>
          <Input id="organization_name" name="organization_name" autoComplete="organization" defaultValue={defaults.organization_name} />
        </Field>
        <Field label="Company name" htmlFor="company_name" hint="The legal name on invoices." error={errors.company_name}>
          <Input id="company_name" name="company_name" defaultValue={defaults.company_name} />
        </Field>
        <dl className="grid grid-cols-2 gap-3 text-sm sm:col-span-2 sm:grid-cols-4">
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">Organization ID</dt>
            <dd className="break-all font-mono text-xs">{entity.id}</dd>
          </div>
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">Type</dt>
            <dd>{entity.organization_type ?? "—"}</dd>
          </div>
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">State</dt>
            <dd>
              <Badge tone={entity.state === "active" ? "good" : "warn"}>{entity.state}</Badge>
            </dd>
          </div>
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">Your relation</dt>
            <dd>{entity.relation}</dd>
          </div>
        </dl>
      </CardBody>
    </Card>
  );
}

function TaxCard({ defaults, errors }: { defaults: SettingsFormInput; errors: FieldErrors }) {
  return (
    <Card>
      <CardHeader title="Tax" description="The tax identifier printed on invoices." />
      <CardBody className="grid gap-4 sm:grid-cols-2">
        <Field label="Tax ID" htmlFor="tax_id" error={errors.tax_id}>
          <Input id="tax_id" name="tax_id" defaultValue={defaults.tax_id} />
        </Field>
        <Field label="Tax ID type" htmlFor="tax_id_type" error={errors.tax_id_type}>
          <Select id="tax_id_type" name="tax_id_type" defaultValue={defaults.tax_id_type}>
            <option value="">Not set</option>
            <option value="EIN">EIN (United States)</option>
            <option value="VAT">VAT (European Union)</option>
          </Select>
        </Field>
      </CardBody>
    </Card>
  );
}

function AddressCard({ defaults, errors }: { defaults: SettingsFormInput; errors: FieldErrors }) {
  return (
    <Card>
      <CardHeader title="Billing address" description="All fields but the second line are required once any is filled in." />
      <CardBody className="grid gap-4 sm:grid-cols-2">
        {ADDRESS_FIELDS.map((f) => (
          <Field key={f.name} label={f.label} htmlFor={`billing_addr-${f.name}`} error={errors[`billing_addr.${f.name}`]}>
            <Input id={`billing_addr-${f.name}`} name={`billing_addr.${f.name}`} autoComplete={f.autoComplete} defaultValue={defaults.billing_addr[f.name]} />
          </Field>
        ))}
      </CardBody>
    </Card>
  );
}
