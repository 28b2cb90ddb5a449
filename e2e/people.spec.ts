import type { Page } from "@playwright/test";
import { operationPath } from "@/lib/contract/operations";
import { authFile, bffPath, expect, gatewayAs, openWith, test } from "./fixtures";

const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

const peopleTable = (page: Page) => page.getByRole("table", { name: "People" });
const personRow = (page: Page, email: string) => peopleTable(page).getByRole("row").filter({ hasText: email });

test.describe("People", () => {
  test("the owner sees everyone with source, roles as chips and last activity, and searches by name", async ({ ownerPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}`);
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "People" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "People" })).toBeVisible();
    const auditor = personRow(page, demo.auditor.email);
    await expect(auditor).toContainText("Ada Auditor");
    await expect(auditor).toContainText("Active");
    await expect(auditor).toContainText("Admin");
    await expect(auditor.getByRole("list", { name: `Roles of ${demo.auditor.email}` }).getByRole("listitem")).toHaveText(
      ["Auditor", "Billing Viewer", "Organization Member"].map((r) => new RegExp(r)),
      { useInnerText: true },
    );
    const owner = personRow(page, demo.owner.email);
    await expect(owner.getByRole("list", { name: `Roles of ${demo.owner.email}` })).toContainText("Owner");
    // The owner's own calls mark them active.
    await expect(owner).not.toContainText("Never");

    const search = page.getByRole("search", { name: "Filter people" });
    await search.getByRole("searchbox").fill("MILO");
    await search.getByRole("button", { name: "Search" }).click();
    await expect(page).toHaveURL(/q=MILO/);
    await expect(peopleTable(page).getByRole("row")).toHaveCount(2);
    await expect(personRow(page, demo.member.email)).toContainText("Milo Member");

    await search.getByLabel("Status").selectOption("suspended");
    await expect(page.getByText("No one matches")).toBeVisible();
  });

  test("a person's roles are this organization's alone, though the viewer sees their roles in another too", async ({ ownerPage: page, demo, baseURL }) => {
    // Globex's owner makes Acme's owner an Organization Admin there (so their list of bindings holds Globex's too), and
    // gives Acme's auditor a role there.
    const asGlobex = (method: "GET" | "POST" | "DELETE", path: string, body?: unknown) => gatewayAs(page.request, baseURL!, demo.outsider, method, path, body);
    const globex = ((await asGlobex("GET", operationPath("getOrganizations"))).items as Array<{ id: string }>).find((o) => o.id !== demo.organization_id)!.id;
    const roles = (await asGlobex("GET", operationPath("listRoles"))).roles as Array<{ id: string; org_id: string; role_name: string }>;
    const admin = roles.find((r) => r.org_id === globex && r.role_name === "Organization Admin")!;
    const invited: string[] = [];
    try {
      for (const email of [demo.owner.email, demo.auditor.email]) {
        const person = await asGlobex("POST", operationPath("inviteOrganizationPerson", { org_id: globex }), { email, role_ids: [admin.id] });
        invited.push(person.id as string);
      }
      await page.goto(`/orgs/${demo.organization_id}/people`);
      await expect(personRow(page, demo.auditor.email).getByRole("list", { name: `Roles of ${demo.auditor.email}` }).getByRole("listitem")).toHaveText(
        ["Auditor", "Billing Viewer", "Organization Member"].map((r) => new RegExp(r)),
        { useInnerText: true },
      );
    } finally {
      for (const id of invited) await asGlobex("DELETE", operationPath("removeOrganizationPerson", { org_id: globex, user_id: id }));
    }
  });

  test("the owner invites a person with a role, then removes them after typing their e-mail", async ({ ownerPage: page, demo, browserErrors }) => {
    browserErrors.allow(/the server responded with a status of 409/, "inviting a person twice is refused on purpose: the browser logs the 409");
    const email = `${unique("invitee")}@acme.example`;
    await page.goto(`/orgs/${demo.organization_id}/people`);
    await page.getByRole("button", { name: "Invite person" }).click();
    const dialog = page.getByRole("dialog", { name: "Invite a person" });
    await dialog.getByRole("button", { name: "Send invitation" }).click();
    await expect(dialog.getByRole("alert")).toContainText("Enter the person's e-mail address");
    // Checked as the gateway checks it, each field's problem beside it.
    await dialog.getByLabel("E-mail").fill("ivy@");
    await dialog.getByLabel("Name (optional)").fill("x".repeat(256));
    await dialog.getByRole("button", { name: "Send invitation" }).click();
    await expect(dialog.getByRole("alert").filter({ hasText: "Must be an e-mail address" })).toBeVisible();
    await expect(dialog.getByRole("alert").filter({ hasText: "Must be at most 255 characters" })).toBeVisible();
    await dialog.getByLabel("E-mail").fill(email);
    await dialog.getByLabel("Name (optional)").fill("Ivy Invitee");
    await dialog.getByRole("checkbox", { name: /Billing Viewer/ }).check();
    await dialog.getByRole("button", { name: "Send invitation" }).click();
    await expect(page.getByText(`${email} invited`)).toBeVisible();
    await expect(dialog).toBeHidden();

    const row = personRow(page, email);
    await expect(row).toContainText("Ivy Invitee");
    await expect(row).toContainText("Invited");
    await expect(row.getByRole("list", { name: `Roles of ${email}` })).toContainText("Billing Viewer");
    await expect(row.getByRole("list", { name: `Roles of ${email}` })).toContainText("Organization Member");

    // Inviting them again is refused, in words.
    await page.getByRole("button", { name: "Invite person" }).click();
    await dialog.getByLabel("E-mail").fill(email);
    await dialog.getByRole("button", { name: "Send invitation" }).click();
    await expect(dialog.getByRole("alert")).toContainText(`${email} is already a person of this organization.`);
    // The refusal names the address sent, not what the field holds since.
    await dialog.getByLabel("E-mail").fill(`other-${email}`);
    await expect(dialog.getByRole("alert")).toContainText(`${email} is already a person of this organization.`);
    await expect(dialog.getByRole("alert")).not.toContainText(`other-${email}`);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    // Cancel clears the dialog: it reopens empty, without the refusal.
    await page.getByRole("button", { name: "Invite person" }).click();
    await expect(dialog.getByLabel("E-mail")).toHaveValue("");
    await expect(dialog.getByRole("alert")).toHaveCount(0);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();

    await row.getByRole("button", { name: `Remove ${email}` }).click();
    const confirm = page.getByRole("dialog", { name: `Remove ${email} from the organization?` });
    const removeButton = confirm.getByRole("button", { name: "Remove person" });
    await expect(removeButton).toBeDisabled();
    await confirm.getByLabel(`Type ${email} to confirm`).fill(email);
    await removeButton.click();
    await expect(page.getByText(`${email} removed from the organization`)).toBeVisible();
    await expect(personRow(page, email)).toHaveCount(0);
    // The last owner cannot be removed: the button says why.
    const ownerRemove = personRow(page, demo.owner.email).getByRole("button", { name: `Remove ${demo.owner.email}` });
    await expect(ownerRemove).toBeDisabled();
    await expect(ownerRemove).toHaveAccessibleDescription("The last active owner of the organization cannot be removed.");
  });

  test("people are named and linked wherever they appear: IAM bindings and audit-log actors", async ({ ownerPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}/iam`);
    const table = page.getByRole("table", { name: "Role bindings" });
    const link = table.getByRole("link", { name: /Ada Auditor/ }).first();
    await expect(link).toBeVisible();
    await expect(table).not.toContainText(demo.auditor.user_id);
    await link.click();
    await expect(page).toHaveURL(new RegExp(`/people\\?q=${encodeURIComponent(demo.auditor.email).replace(/\./g, "\\.")}`));
    await expect(peopleTable(page).getByRole("row")).toHaveCount(2);

    await page.goto(`/orgs/${demo.organization_id}/audit-logs`);
    await expect(page.getByRole("table").getByRole("link", { name: /Olivia Owner|Milo Member/ }).first()).toBeVisible();
  });

  test("a member sees no billing, usage, quota or audit navigation, and a 403 is explained in place", async ({ memberPage: page, demo, browserErrors }) => {
    browserErrors.allow(/the server responded with a status of 403/, "the member opens a page their role does not grant on purpose: the browser logs the 403 the page then explains");
    await page.goto(`/orgs/${demo.organization_id}`);
    const nav = page.getByRole("navigation", { name: "Console" });
    await expect(nav.getByRole("link", { name: "People" })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Reservations" })).toBeVisible();
    for (const hidden of ["Billing", "Usage", "Quotas", "Audit logs"]) await expect(nav.getByRole("link", { name: hidden, exact: true })).toHaveCount(0);
    await expect(page.getByText("Latest activity")).toHaveCount(0);

    await page.goto(`/orgs/${demo.organization_id}/billing`);
    await expect(page.getByRole("alert").filter({ hasText: "You don't have access" }).first()).toContainText("billing.read");

    await page.goto(`/orgs/${demo.organization_id}/people`);
    const invite = page.getByRole("button", { name: "Invite person" });
    await expect(invite).toBeDisabled();
    await expect(invite).toHaveAccessibleDescription(/iam\.write/);
    await expect(personRow(page, demo.owner.email)).toContainText("Olivia Owner");
  });

  test("the owner requires SSO of a person: their open key session ends, and their key opens no other until it is lifted", async ({ ownerPage: page, auditorPage, browser, demo }) => {
    const lift = () => page.request.patch(bffPath("updateOrganizationPerson", { org_id: demo.organization_id, user_id: demo.auditor.user_id }), { data: { sso_required: false } });
    await auditorPage.goto(`/orgs/${demo.organization_id}`);
    await expect(auditorPage).toHaveURL(new RegExp(`/orgs/${demo.organization_id}$`));
    try {
      await page.goto(`/orgs/${demo.organization_id}/people`);
      const row = personRow(page, demo.auditor.email);
      await expect(row).toContainText("SSO or API key");
      // The table hydrates after the rest of the page: clicked until it answers. It asks first, saying what ends.
      const confirm = page.getByRole("dialog", { name: `Require ${demo.auditor.email} to sign in with SSO?` });
      await openWith(row.getByRole("button", { name: `Require ${demo.auditor.email} to sign in with SSO` }), confirm);
      await expect(confirm).toContainText("their API-key sessions end at once");
      await expect(confirm).toContainText("acme.example");
      await confirm.getByRole("button", { name: "Require SSO" }).click();
      await expect(confirm).toBeHidden();
      await expect(row.getByText("SSO only", { exact: true })).toBeVisible();
      await expect(row.getByRole("button", { name: `Allow ${demo.auditor.email} to sign in with an API key` })).toBeVisible();
      // The auditor's session, opened with the key before, ends at its next request.
      await auditorPage.goto(`/orgs/${demo.organization_id}`);
      await expect(auditorPage).toHaveURL(/\/sign-in\?reason=revoked/);

      const context = await browser.newContext();
      const other = await context.newPage();
      try {
        await other.goto("/sign-in");
        await other.getByRole("button", { name: "Sign in as demo auditor" }).click();
        await expect(other.getByRole("alert").filter({ hasText: "Your organization requires you to sign in with SSO" })).toBeVisible();
        await expect(other).toHaveURL(/\/sign-in/);

        await row.getByRole("button", { name: `Allow ${demo.auditor.email} to sign in with an API key` }).click();
        await expect(row).toContainText("SSO or API key");
        // The button pressed keeps the focus through its call and the table's refresh (the same button, renamed).
        await expect(row.getByRole("button", { name: `Require ${demo.auditor.email} to sign in with SSO` })).toBeFocused();
        await other.goto("/sign-in");
        await other.getByRole("button", { name: "Sign in as demo auditor" }).click();
        await expect(other).toHaveURL(new RegExp(`/orgs/${demo.organization_id}$`));
        // The specs after this one open the auditor's pages with this session: the one they had has ended.
        await context.storageState({ path: authFile("auditor") });
      } finally {
        await context.close();
      }
    } finally {
      expect((await lift()).ok()).toBe(true);
    }
  });

  test("the demo auditor signs in with one click and reads billing and the audit log, but changes nothing", async ({ browser, demo }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto("/sign-in");
      await page.getByRole("button", { name: "Sign in as demo auditor" }).click();
      await expect(page).toHaveURL(new RegExp(`/orgs/${demo.organization_id}$`));
      const nav = page.getByRole("navigation", { name: "Console" });
      for (const shown of ["Billing", "Usage", "Quotas", "Audit logs"]) await expect(nav.getByRole("link", { name: shown, exact: true })).toBeVisible();

      await nav.getByRole("link", { name: "Audit logs", exact: true }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Audit logs" })).toBeVisible();
      await expect(page.getByRole("table").getByRole("row").nth(1)).toBeVisible();

      await nav.getByRole("link", { name: "Billing", exact: true }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Billing" })).toBeVisible();
      // Projects the auditor holds no role on are named as the CSV names them, never masked.
      await expect(page.getByText(/Project [0-9a-f]{8}\b/)).toHaveCount(0);
      await expect(page.getByText("staging").first()).toBeVisible();

      await nav.getByRole("link", { name: "Projects", exact: true }).click();
      await expect(page.getByRole("button", { name: "Create project" })).toBeDisabled();
    } finally {
      await context.close();
    }
  });
});
