/**
 * Where the console shows an audit-log entry's target: the object's own page when it has one
 * (a project, a SCIM integration), else the page that lists it (a VM's project, the S3 keys,
 * IAM…). Deleted objects go to their list. Null when the console has no page for it.
 */
export function auditTargetHref(
  orgId: string,
  entry: { target_type: string; target_ids: string[]; project_id: string; action: string },
): string | null {
  const org = `/orgs/${encodeURIComponent(orgId)}`;
  const id = entry.target_ids[0];
  const deleted = entry.action.toLowerCase() === "delete";
  const project = entry.project_id ? `${org}/projects/${encodeURIComponent(entry.project_id)}` : null;
  switch (entry.target_type.toLowerCase()) {
    case "project":
      return deleted || !(id || entry.project_id) ? `${org}/projects` : `${org}/projects/${encodeURIComponent(id || entry.project_id)}`;
    case "vm":
    case "disk":
    case "snapshot":
      return project;
    case "s3key":
      return `${org}/storage`;
    case "rolebinding":
    case "user":
      return `${org}/iam`;
    case "ssoprovider":
      return `${org}/security/sso`;
    case "organizationmfa":
      return `${org}/security/mfa`;
    case "scimintegration":
      return deleted || !id ? `${org}/security/scim` : `${org}/security/scim/${encodeURIComponent(id)}`;
    case "scimtoken":
      return `${org}/security/scim`;
    case "organization":
      return `${org}/settings`;
    case "ccrtoken":
      return "/catalog/registry";
    default:
      return null;
  }
}
