import type { FormEvent } from "react";

/**
 * Simple forms (a search form, a three-field create) use React's own form handling: named inputs,
 * read as FormData on submit, and the messages of what is wrong kept in state. react-hook-form
 * (13 KB gzipped) is for forms that earn it: dialogs, field groups, touched-field validation.
 */

/** Field name → message. */
export type FieldErrors = Partial<Record<string, string>>;

/** The form's values by field name; a name that appears more than once keeps its first value. */
export function formValues(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of new FormData(form)) if (typeof value === "string" && !(name in values)) values[name] = value;
  return values;
}

/** The first message for each field of a validation's issues (zod's shape), keyed by path ("billing_addr.city"). */
export function issueMessages(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) errors[issue.path.map(String).join(".")] ??= issue.message;
  return errors;
}

type Validated<T> = { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } };

/**
 * A validation's data, with the form's messages cleared; or null, with each field's first message
 * shown (`setErrors`) and the first field at fault focused.
 */
export function validData<T>(form: HTMLFormElement, result: Validated<T>, setErrors: (errors: FieldErrors) => void): T | null {
  if (result.success) {
    setErrors({});
    return result.data;
  }
  showErrors(form, issueMessages(result.error.issues), setErrors);
  return null;
}

/** Shows the messages and focuses the first field at fault; true when there is any. */
export function showErrors(form: HTMLFormElement, errors: FieldErrors, setErrors: (errors: FieldErrors) => void): boolean {
  setErrors(errors);
  const any = Object.values(errors).some(Boolean);
  if (any) focusFirstError(form, errors);
  return any;
}

/** Moves focus to the first field, in the form's order, that has a message. */
export function focusFirstError(form: HTMLFormElement, errors: FieldErrors): void {
  for (const element of Array.from(form.elements)) {
    const name = (element as HTMLInputElement).name;
    if (name && errors[name] && "focus" in element) {
      (element as HTMLElement).focus();
      return;
    }
  }
}

/** An onChange for the form: a field's message goes once the field changes. */
export function clearErrorOnChange(errors: FieldErrors, setErrors: (next: FieldErrors) => void) {
  return (e: FormEvent<HTMLFormElement>) => {
    const name = (e.target as HTMLInputElement).name;
    if (name && errors[name]) setErrors({ ...errors, [name]: undefined });
  };
}
