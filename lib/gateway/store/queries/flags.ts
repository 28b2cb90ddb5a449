import { and, eq, inArray, or } from "drizzle-orm";
import type { Database } from "../client";
import { featureFlagRules, featureFlags } from "../schema";

const SPECIFICITY: Record<string, number> = { organization: 1, user: 2, project: 3 };

/**
 * Every flag's value for a user in an organization (and a project, when given):
 * the default, overridden by organization, then user, then project rules.
 */
export async function evaluateFlags(
  db: Database,
  target: { userId: string; organizationId?: string; projectId?: string },
): Promise<Record<string, unknown>> {
  const flags = await db.select().from(featureFlags);
  const conditions = [and(eq(featureFlagRules.targetType, "user"), eq(featureFlagRules.targetId, target.userId))];
  if (target.organizationId) {
    conditions.push(and(eq(featureFlagRules.targetType, "organization"), eq(featureFlagRules.targetId, target.organizationId)));
  }
  if (target.projectId) {
    conditions.push(and(eq(featureFlagRules.targetType, "project"), eq(featureFlagRules.targetId, target.projectId)));
  }
  const rules = await db
    .select()
    .from(featureFlagRules)
    .where(and(inArray(featureFlagRules.flagKey, flags.map((f) => f.key).concat("")), or(...conditions)));
  const values: Record<string, unknown> = Object.fromEntries(flags.map((f) => [f.key, f.defaultValue]));
  rules
    .sort((a, b) => (SPECIFICITY[a.targetType] ?? 0) - (SPECIFICITY[b.targetType] ?? 0) || a.priority - b.priority)
    .forEach((rule) => {
      values[rule.flagKey] = rule.value;
    });
  return values;
}
