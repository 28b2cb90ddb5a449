/**
 * The gateway names the bad field in a 400's message, one problem per "; "-separated
 * part: "body.billing_addr.postal_code: must hold only …" (request validation) or
 * "name: a project named …" (a handler's own check). These helpers read them back.
 */

export interface FieldProblem {
  /** The field as the body names it, without the "body." prefix: "billing_addr.postal_code", "bindings_to_create[1].scope_type". */
  field: string;
  message: string;
}

const PART = /^(?:(?:body|query|path)\.)?([A-Za-z_]\w*(?:\[\d+\])?(?:\.[A-Za-z_]\w*(?:\[\d+\])?)*): (.+)$/s;

export function gatewayFieldProblems(message: string): FieldProblem[] {
  return message
    .split("; ")
    .map((part) => PART.exec(part.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ field: m[1] ?? "", message: m[2] ?? "" }));
}

export interface ChangeRef {
  kind: "create" | "delete";
  index: number;
}

/** Which staged change of a role-binding apply a 400 is about: bindings_to_create[1] → { create, 1 }. */
export function failedChange(message: string): ChangeRef | null {
  const m = /bindings_to_(create|delete)\[(\d+)\]/.exec(message);
  if (!m) return null;
  return { kind: m[1] === "create" ? "create" : "delete", index: Number(m[2]) };
}
