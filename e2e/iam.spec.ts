import type { Page } from "@playwright/test";
import { operationPath } from "@/lib/contract/operations";
import { bffPath, expect, holdRequests, openWith, test } from "./fixtures";

interface ApiProject {
  id: string;
  name: string;
}
interface ApiRole {
  id: string;
  role_name: string;
  org_id: string;
}
interface ApiBinding {
  id: string;
  role_name: string;
  scope_type: string;
  scope_object_id: string;
}

const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

async function call<T>(page: Page, method: string, path: string, data?: unknown): Promise<T> {
  const res = await page.request.fetch(`/api/cloud${path}`, { method, data });
  expect(res.ok(), `${method} ${path}: ${await res.text()}`).toBe(true);
  return (await res.json()) as T;
}

const createProject = async (page: Page, orgId: string, name: string) =>
  (await call<{ project: ApiProject }>(page, "POST", operationPath("createProject"), { organization_id: orgId, name })).project;

/** Deleting a project also removes the role bindings on it. */
const deleteProject = (page: Page, id: string) => page.request.delete(bffPath("deleteProject", { project_id: id }));

async function bindingsOf(page: Page, userId: string): Promise<ApiBinding[]> {
  return (await call<{ role_bindings: ApiBinding[] }>(page, "GET", `${operationPath("listRoleBindings")}?user_id=${userId}`)).role_bindings;
}

/** Picks a person in the editor's combobox by typing part of their name, never their id. */
async function pickUser(page: Page, name: string, email: string) {
  const picker = page.getByRole("form", { name: "Pick a person" });
  await picker.getByRole("combobox", { name: "Person" }).fill(name.split(" ")[0]!.toLowerCase());
  await picker.getByRole("option", { name: new RegExp(email) }).click();
  await picker.getByRole("button", { name: "Edit bindings" }).click();
  await expect(page.getByText("Editing the bindings of")).toContainText(name);
  await expect(page.getByText("Editing the bindings of")).toContainText(email);
}

async function stageAddition(page: Page, role: string, scopeType: "org" | "project", scope: string) {
  const form = page.getByRole("form", { name: "Stage an addition" });
  await form.getByLabel("Role", { exact: true }).selectOption({ label: role });
  await form.getByLabel("Scope type").selectOption(scopeType);
  await form.getByLabel("Scope", { exact: true }).selectOption({ label: scope });
  await form.getByRole("button", { name: "Stage addition" }).click();
}

const staged = (page: Page) => page.getByRole("list", { name: "Staged changes" }).getByRole("listitem");

test.describe("IAM", () => {
  test("roles are listed with their allowed scopes and descriptions", async ({ ownerPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}/iam`);
    const roles = page.getByRole("table", { name: "Roles" });
    const admin = roles.getByRole("row").filter({ hasText: "Project Admin" });
    await expect(admin).toContainText("Manages a project: rename, delete and its resources.");
    await expect(admin.getByRole("cell").nth(1)).toHaveText(/project\s*org/);
    await expect(roles.getByRole("row").filter({ hasText: "Project Creator" }).getByRole("cell").nth(1)).toHaveText("org");
  });

  test("the owner stages two additions and one removal for the member, reviews the diff and applies them at once", async ({ ownerPage: page, demo }) => {
    const orgId = demo.organization_id;
    const member = demo.member.user_id;
    const a = await createProject(page, orgId, unique("e2e-iam-a"));
    const b = await createProject(page, orgId, unique("e2e-iam-b"));
    try {
      const roles = (await call<{ roles: ApiRole[] }>(page, "GET", operationPath("listRoles"))).roles.filter((r) => r.org_id === orgId);
      const projectMember = roles.find((r) => r.role_name === "Project Member")!;
      await call(page, "POST", operationPath("applyRoleBindings", { user_id: member }), {
        bindings_to_create: [{ customer_id: member, role_id: projectMember.id, scope_type: "project", scope_object_id: a.id }],
        bindings_to_delete: [],
      });

      await page.goto(`/orgs/${orgId}/iam`);
      await pickUser(page, "Milo Member", demo.member.email);
      const current = page.getByRole("region", { name: "Current bindings" });
      await current.getByRole("button", { name: `Stage removal of Project Member on project ${a.name}` }).click();
      await expect(current.getByText("Removal staged")).toBeVisible();
      await stageAddition(page, "Project Admin", "project", a.name);
      await stageAddition(page, "Project Member", "project", b.name);

      await expect(staged(page)).toHaveCount(3);
      await expect(staged(page).nth(0)).toContainText("− Remove Project Member");
      await expect(staged(page).nth(0)).toContainText(a.name);
      await expect(staged(page).nth(1)).toContainText("+ Add Project Admin");
      await expect(staged(page).nth(2)).toContainText("+ Add Project Member");
      await expect(staged(page).nth(2)).toContainText(b.name);
      await expect(page.getByLabel("2 to add, 1 to remove")).toHaveText("+2 added · −1 removed");
      // Nothing is applied before the button.
      expect((await bindingsOf(page, member)).filter((x) => x.scope_object_id === b.id)).toEqual([]);

      await page.getByRole("button", { name: "Apply 3 changes" }).click();
      await expect(page.getByText("Applied 3 changes to the role bindings")).toBeVisible();
      await expect(page.getByText("Nothing staged yet.")).toBeVisible();

      // The bindings table, filtered to the member, shows the result.
      const filters = page.getByRole("form", { name: "Filter role bindings" });
      await filters.getByRole("combobox", { name: "Person" }).fill("milo");
      // A screen reader hears how many people the list holds, in a live region beside it.
      await expect(filters.getByRole("status")).toHaveText("1 result.");
      await filters.getByRole("option", { name: /member@acme\.example/ }).click();
      await expect(page).toHaveURL(new RegExp(`user_id=${member}`));
      const table = page.getByRole("table", { name: "Role bindings" });
      const onA = table.getByRole("row").filter({ hasText: a.name });
      await expect(onA).toHaveCount(1);
      await expect(onA).toContainText("Project Admin");
      const onB = table.getByRole("row").filter({ hasText: b.name });
      await expect(onB).toHaveCount(1);
      await expect(onB).toContainText("Project Member");
      await expect(current.getByText(a.name)).toHaveCount(1);

      const after = await bindingsOf(page, member);
      expect(after.filter((x) => x.scope_object_id === a.id).map((x) => x.role_name)).toEqual(["Project Admin"]);
      expect(after.filter((x) => x.scope_object_id === b.id).map((x) => x.role_name)).toEqual(["Project Member"]);
    } finally {
      await deleteProject(page, a.id);
      await deleteProject(page, b.id);
    }
  });

  test("an admin who is not an owner removing a role of their own is asked first: cancelled, nothing is applied; confirmed, it is", async ({ ownerPage, auditorPage: page, demo }) => {
    const orgId = demo.organization_id;
    const auditor = demo.auditor.user_id;
    const p = await createProject(ownerPage, orgId, unique("e2e-iam-own"));
    const roles = (await call<{ roles: ApiRole[] }>(ownerPage, "GET", operationPath("listRoles"))).roles.filter((r) => r.org_id === orgId);
    const [orgAdmin, projectAdmin] = ["Organization Admin", "Project Admin"].map((name) => roles.find((r) => r.role_name === name)!);
    await call(ownerPage, "POST", operationPath("applyRoleBindings", { user_id: auditor }), {
      bindings_to_create: [
        { customer_id: auditor, role_id: orgAdmin!.id, scope_type: "org", scope_object_id: orgId },
        { customer_id: auditor, role_id: projectAdmin!.id, scope_type: "project", scope_object_id: p.id },
      ],
      bindings_to_delete: [],
    });
    try {
      await page.goto(`/orgs/${orgId}/iam`);
      await pickUser(page, "Ada Auditor", demo.auditor.email);
      const current = page.getByRole("region", { name: "Current bindings" });
      await current.getByRole("button", { name: `Stage removal of Project Admin on project ${p.name}` }).click();
      const confirm = page.getByRole("dialog", { name: "Remove roles of your own?" });
      await openWith(page.getByRole("button", { name: "Apply 1 change" }), confirm);
      await expect(confirm).toContainText("You are removing Project Admin from yourself");
      await confirm.getByRole("button", { name: "Cancel" }).click();
      await expect(confirm).toBeHidden();
      await expect(staged(page)).toHaveCount(1);
      expect((await bindingsOf(ownerPage, auditor)).filter((x) => x.scope_object_id === p.id).map((x) => x.role_name)).toEqual(["Project Admin"]);

      await page.getByRole("button", { name: "Apply 1 change" }).click();
      await confirm.getByRole("button", { name: "Apply 1 change" }).click();
      await expect(page.getByText("Nothing staged yet.")).toBeVisible();
      expect((await bindingsOf(ownerPage, auditor)).filter((x) => x.scope_object_id === p.id)).toEqual([]);
    } finally {
      await deleteProject(ownerPage, p.id);
      const granted = (await bindingsOf(ownerPage, auditor)).filter((b) => b.role_name === "Organization Admin");
      await call(ownerPage, "POST", operationPath("applyRoleBindings", { user_id: auditor }), { bindings_to_create: [], bindings_to_delete: granted.map((b) => b.id) });
    }
  });

  test("a failing apply names the change that failed, highlights it, and changes nothing", async ({ ownerPage: page, demo, browserErrors }) => {
    browserErrors.allow(/the server responded with a status of 4\d\d/, "the apply is refused on purpose: the browser logs the gateway's refusal");
    const orgId = demo.organization_id;
    const member = demo.member.user_id;
    const p = await createProject(page, orgId, unique("e2e-iam-fail"));
    try {
      const before = await bindingsOf(page, member);
      await page.goto(`/orgs/${orgId}/iam`);
      await pickUser(page, "Milo Member", demo.member.email);
      await stageAddition(page, "Project Member", "project", p.name);
      // Project Creator may be granted organization-wide only: the editor offers no other scope.
      const form = page.getByRole("form", { name: "Stage an addition" });
      await form.getByLabel("Role", { exact: true }).selectOption({ label: "Project Creator" });
      await expect(form.getByLabel("Scope type").getByRole("option")).toHaveText(["org"]);
      await expect(form.getByText("Project Creator can be granted only across the organization.")).toBeVisible();
      // The member already holds Organization Member: the gateway refuses, and the editor says so in words.
      await stageAddition(page, "Organization Member", "org", "Acme AI Labs");

      await page.getByRole("button", { name: "Apply 2 changes" }).click();
      const alert = page.getByRole("alert").filter({ hasText: "Nothing was applied" });
      await expect(alert).toContainText("Change 2 of 2 failed. Nothing was applied.");
      await expect(alert).toContainText("This person already holds that role there.");
      await expect(alert).not.toContainText("bindings_to_create");
      await expect(staged(page).nth(1)).toHaveAttribute("data-failed", "true");
      await expect(staged(page).nth(1)).toContainText("Change 2 failed");
      await expect(staged(page).nth(0)).not.toHaveAttribute("data-failed", "true");
      // Both changes stay staged to fix or unstage.
      await expect(staged(page)).toHaveCount(2);

      // Not even the valid first change was made.
      const filters = page.getByRole("form", { name: "Filter role bindings" });
      await filters.getByLabel("Scope", { exact: true }).selectOption({ label: `project ${p.name}` });
      await expect(page.getByText("No role binding matches these filters")).toBeVisible();
      expect(await bindingsOf(page, member)).toEqual(before);

      // Unstaging the failed change and applying again makes the valid one.
      await staged(page).nth(1).getByRole("button", { name: /^Unstage addition of Organization Member/ }).click();
      await expect(alert).toHaveCount(0);
      await page.getByRole("button", { name: "Apply 1 change" }).click();
      await expect(page.getByRole("table", { name: "Role bindings" }).getByRole("row").filter({ hasText: p.name })).toContainText("Project Member");
    } finally {
      await deleteProject(page, p.id);
    }
  });

  test("a change staged while an apply is out stays staged after it; the changes sent cannot be unstaged meanwhile, the ones staged since can", async ({ ownerPage: page, demo }) => {
    const orgId = demo.organization_id;
    const p = await createProject(page, orgId, unique("e2e-iam-inflight"));
    try {
      await page.goto(`/orgs/${orgId}/iam`);
      await pickUser(page, "Milo Member", demo.member.email);
      await stageAddition(page, "Project Member", "project", p.name);
      await expect(staged(page)).toHaveCount(1);

      // The apply is held back (then passed on as is) to stage another change while it is out.
      const applyPath = (url: URL) => url.pathname === bffPath("applyRoleBindings", { user_id: demo.member.user_id });
      const { release } = await holdRequests(page, applyPath);
      await page.getByRole("button", { name: "Apply 1 change" }).click();
      await expect(page.getByRole("button", { name: "Applying…" })).toBeDisabled();
      await expect(staged(page).first().getByRole("button", { name: /^Unstage addition of Project Member/ })).toBeDisabled();
      await stageAddition(page, "Project Admin", "project", p.name);
      await expect(staged(page)).toHaveCount(2);
      // The change staged meanwhile was not sent: it may be unstaged (and staged again) while the first may not.
      await expect(staged(page).first().getByRole("button", { name: /^Unstage addition of Project Member/ })).toBeDisabled();
      await staged(page).nth(1).getByRole("button", { name: /^Unstage addition of Project Admin/ }).click();
      await expect(staged(page)).toHaveCount(1);
      await stageAddition(page, "Project Admin", "project", p.name);
      await expect(staged(page)).toHaveCount(2);
      release();

      await expect(page.getByText("Applied 1 change to the role bindings")).toBeVisible();
      // The change staged meanwhile was not sent: it is still staged, to apply next.
      await expect(staged(page)).toHaveCount(1);
      await expect(staged(page).first()).toContainText("+ Add Project Admin");
      await expect(page.getByRole("button", { name: "Apply 1 change" })).toBeEnabled();
      expect((await bindingsOf(page, demo.member.user_id)).filter((x) => x.scope_object_id === p.id).map((x) => x.role_name)).toEqual(["Project Member"]);
    } finally {
      await deleteProject(page, p.id);
    }
  });

  test("role-binding filters live in the URL and survive a reload", async ({ ownerPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}/iam`);
    const filters = page.getByRole("form", { name: "Filter role bindings" });
    await filters.getByLabel("Role", { exact: true }).selectOption({ label: "Organization Admin" });
    await expect(page).toHaveURL(/role_id=/);
    const table = page.getByRole("table", { name: "Role bindings" });
    const ownerRow = table.getByRole("row").filter({ hasText: demo.owner.email });
    await expect(ownerRow).toContainText("Olivia Owner");
    await expect(ownerRow).toContainText("you");
    await expect(ownerRow).toContainText("Acme AI Labs");
    await expect(table.getByRole("row")).toHaveCount(2); // header + the owner's

    await page.reload();
    await expect(page.getByRole("form", { name: "Filter role bindings" }).getByLabel("Role", { exact: true })).toHaveValue(/.+/);
    await expect(table.getByRole("row")).toHaveCount(2);

    await filters.getByLabel("Scope type").selectOption("project");
    await expect(page).toHaveURL(/scope_type=project/);
    await expect(page.getByText("No role binding matches these filters")).toBeVisible();
    await page.getByRole("button", { name: "Clear filters" }).first().click();
    await expect(page).not.toHaveURL(/role_id=|scope_type=/);
    await expect(table.getByRole("row").filter({ hasText: "Project Admin" }).first()).toBeVisible();
  });

  test("the member sees only their own bindings, and the editor disabled with the reason", async ({ memberPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}/iam`);
    await expect(page.getByRole("note")).toContainText("You need the iam.write permission");
    const picker = page.getByRole("form", { name: "Pick a person" });
    await expect(picker.getByRole("combobox", { name: "Person" })).toBeDisabled();
    await expect(picker.getByRole("button", { name: "Edit bindings" })).toBeDisabled();
    await expect(page.getByText("Without the iam.read permission you see only your own bindings.")).toBeVisible();

    const rows = page.getByRole("table", { name: "Role bindings" }).getByRole("row");
    await expect(rows).toHaveCount(5); // header + Organization Member + 3 project roles
    for (const row of await rows.all().then((all) => all.slice(1))) {
      await expect(row).toContainText("Milo Member");
      await expect(row).toContainText(demo.member.email);
      await expect(row).toContainText("you");
      await expect(row.getByRole("button", { name: /^Stage removal/ })).toBeDisabled();
    }
    await expect(rows.filter({ hasText: "Project Admin" })).toContainText("llm-training");
    await expect(page.getByRole("table", { name: "Roles" })).toContainText("Organization Admin");
  });

  test("an Organization Admin who is not an owner is told before any click that an owner's sign-in, factors and bindings are an owner's to change", async ({
    ownerPage,
    auditorPage: page,
    demo,
  }) => {
    const orgId = demo.organization_id;
    const auditor = demo.auditor.user_id;
    const orgAdmin = (await call<{ roles: ApiRole[] }>(ownerPage, "GET", operationPath("listRoles"))).roles.find((r) => r.org_id === orgId && r.role_name === "Organization Admin")!;
    await call(ownerPage, "POST", operationPath("applyRoleBindings", { user_id: auditor }), {
      bindings_to_create: [{ customer_id: auditor, role_id: orgAdmin.id, scope_type: "org", scope_object_id: orgId }],
      bindings_to_delete: [],
    });
    try {
      await page.goto(`/orgs/${orgId}/people`);
      const people = page.getByRole("table", { name: "People" });
      const owner = people.getByRole("row").filter({ hasText: demo.owner.email });
      const requireSso = owner.getByRole("button", { name: `Require ${demo.owner.email} to sign in with SSO` });
      await expect(requireSso).toBeDisabled();
      await expect(requireSso).toHaveAccessibleDescription("Only an owner of the organization can require SSO sign-in of an owner.");
      await expect(owner.getByRole("button", { name: `Remove ${demo.owner.email}` })).toHaveAccessibleDescription("Only an owner of the organization can remove an owner.");
      // A person who is not an owner is the admin's to manage.
      const member = people.getByRole("row").filter({ hasText: demo.member.email });
      await expect(member.getByRole("button", { name: `Require ${demo.member.email} to sign in with SSO` })).toBeEnabled();

      await page.goto(`/orgs/${orgId}/iam?user_id=${demo.owner.user_id}`);
      const rows = page.getByRole("table", { name: "Role bindings" }).getByRole("row");
      await expect(rows.filter({ hasText: "Organization Admin" })).toContainText("Olivia Owner");
      for (const row of await rows.all().then((all) => all.slice(1))) {
        const remove = row.getByRole("button", { name: /^Stage removal/ });
        await expect(remove).toBeDisabled();
        await expect(remove).toHaveAccessibleDescription("Only an owner of the organization can change the role bindings of an owner.");
      }
      // The editor, for the owner: the reason, and nothing to stage.
      await pickUser(page, "Olivia Owner", demo.owner.email);
      await expect(page.getByRole("note")).toHaveText("Only an owner of the organization can change the role bindings of an owner.");
      await expect(page.getByRole("form", { name: "Stage an addition" }).getByRole("button", { name: "Stage addition" })).toBeDisabled();
      await expect(page.getByRole("region", { name: "Current bindings" }).getByRole("button", { name: /^Stage removal/ }).first()).toBeDisabled();
    } finally {
      const granted = (await bindingsOf(ownerPage, auditor)).filter((b) => b.role_name === "Organization Admin");
      await call(ownerPage, "POST", operationPath("applyRoleBindings", { user_id: auditor }), { bindings_to_create: [], bindings_to_delete: granted.map((b) => b.id) });
    }
  });
});
