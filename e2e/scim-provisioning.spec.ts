import { expect, openWith, test } from "./fixtures";

const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

test("an identity provider provisions through the console's /scim/v2; the integration page shows it, and mappings are edited with a preview", async ({
  ownerPage: page,
  browserErrors,
  demo,
  request,
  baseURL,
}) => {
  await page.goto(`/orgs/${demo.organization_id}/security/scim`);
  const name = unique("e2e-idp");
  const form = page.getByRole("dialog", { name: "New SCIM integration" });
  await openWith(page.getByRole("button", { name: "New integration" }), form);
  await form.getByLabel("Name", { exact: true }).fill(name);
  await form.getByLabel("Identity provider", { exact: true }).fill("okta");
  await form.getByLabel("Token alias").fill(`${name}-token`);
  await form.getByRole("button", { name: "Create integration" }).click();

  // The one-time dialog shows the SCIM base URL beside the token, both copyable.
  const dialog = page.getByRole("dialog", { name: `Token for ${name}` });
  await expect(dialog).toContainText("SCIM base URL");
  await expect(dialog).toContainText(`${baseURL}/scim/v2`);
  await expect(dialog.getByRole("button", { name: "Copy SCIM base URL" })).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Copy Bearer token" })).toBeVisible();
  const token = (await dialog.locator('code[data-secret="true"]').textContent())?.trim() ?? "";
  expect(token).toMatch(/^scim_/);
  await dialog.getByLabel("I have saved this secret somewhere safe").check();
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toBeHidden();

  // The identity provider, over HTTP, against the console's own server.
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" };
  const userName = `${unique("ada")}@idp.example`;
  const created = await request.post(`/scim/v2/Users`, {
    headers,
    data: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName, name: { givenName: "Ada", familyName: "Lovelace" }, displayName: "Ada Lovelace" },
  });
  expect(created.status()).toBe(201);
  const userId = ((await created.json()) as { id: string }).id;
  const groupName = unique("Analysts");
  const group = await request.post(`/scim/v2/Groups`, {
    headers,
    data: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: groupName, members: [{ value: userId }] },
  });
  expect(group.status()).toBe(201);
  expect((await request.get(`/scim/v2/Users`, { headers: { Authorization: "Bearer scim_wrong" } })).status()).toBe(401);

  await page.getByRole("link", { name }).click();
  await expect(page.getByRole("heading", { name })).toBeVisible();
  await expect(page.getByTestId("scim-base-url")).toHaveText(`${baseURL}/scim/v2`);
  expect(await page.content()).not.toContain(token);

  const people = page.getByRole("table", { name: "Provisioned people" });
  await expect(people.getByRole("row", { name: new RegExp(userName) })).toContainText("Ada Lovelace");
  const groups = page.getByRole("table", { name: "Provisioned groups" });
  await expect(groups.getByRole("row", { name: new RegExp(groupName) })).toContainText("1");
  const activity = page.getByRole("list", { name: "Provisioning activity" });
  await expect(activity).toContainText("Create User");
  await expect(activity).toContainText("Create Group");

  // Mappings: a draft, its preview, then saved.
  await page.getByRole("button", { name: "Add mapping" }).click();
  await page.getByLabel("Group name 1").fill(groupName);
  await page.getByLabel("Role 1").selectOption({ label: "Auditor" });

  // The mapping calls are held back (then passed on as sent) to edit while they are out: PUTs until
  // `release`, reads of the mappings until the end of the save's checks.
  let release = () => {};
  let held = new Promise<void>((resolve) => (release = resolve));
  let releaseReads = () => {};
  const reads = new Promise<void>((resolve) => (releaseReads = resolve));
  const mappingCalls = (url: URL) => url.pathname.endsWith("/group-mappings");
  await page.route(mappingCalls, async (route) => {
    await (route.request().method() === "GET" ? reads : held);
    await route.continue();
  });
  const previewButton = page.getByRole("button", { name: "Preview changes" });
  const preview = page.getByTestId("scim-mapping-preview");
  // A preview answered after the draft was edited is the older draft's: it is not shown.
  await previewButton.click();
  await expect(previewButton).toBeDisabled();
  await page.getByLabel("Group name 1").fill(`${groupName}-draft`);
  await page.getByLabel("Group name 1").fill(groupName);
  release();
  await expect(previewButton).toBeEnabled();
  await expect(preview).toHaveCount(0);

  await previewButton.click();
  await expect(preview).toContainText("Preview: 1 binding(s) to create, 0 to remove");
  await expect(preview).toContainText(`${userName.toLowerCase()}: Auditor (org) via ${groupName}`);
  held = new Promise<void>((resolve) => (release = resolve));
  await page.getByRole("button", { name: "Save mappings" }).click();
  // Saving clears the draft: while it is out, the draft takes no edit.
  await expect(page.getByLabel("Group name 1")).toBeDisabled();
  await expect(page.getByRole("button", { name: "Add mapping" })).toBeDisabled();
  release();
  await expect(preview).toContainText("Applied: 1 binding(s) to create, 0 to remove");
  // The saved mappings show at once, from the save's answer: no read of them is needed (they are held back).
  await expect(page.getByLabel("Group name 1")).toHaveValue(groupName);
  await expect(page.getByLabel("Group name 1")).toBeEnabled();
  releaseReads();
  await page.unroute(mappingCalls);
  await page.reload();
  await expect(page.getByLabel("Group name 1")).toHaveValue(groupName);

  // Removing the mapping previews the binding's removal.
  await page.getByRole("button", { name: "Remove mapping 1" }).click();
  await page.getByRole("button", { name: "Preview changes" }).click();
  await expect(page.getByTestId("scim-mapping-preview")).toContainText("0 binding(s) to create, 1 to remove");

  // A role bound at either scope asks which; the project is chosen by name, and another role allowed there keeps it
  // (never widened to the organization).
  await page.getByRole("button", { name: "Add mapping" }).click();
  await page.getByLabel("Group name 1").fill(groupName);
  await page.getByLabel("Role 1").selectOption({ label: "Project Admin" });
  await expect(page.getByLabel("Scope 1")).toHaveValue("org");
  await page.getByLabel("Scope 1").selectOption({ label: "One project" });
  await page.getByLabel("Project 1").selectOption({ label: "llm-training" });
  await page.getByLabel("Role 1").selectOption({ label: "Project Member" });
  await expect(page.getByLabel("Project 1").locator("option:checked")).toHaveText("llm-training");
  await page.getByRole("button", { name: "Preview changes" }).click();
  await expect(page.getByTestId("scim-mapping-preview")).toContainText("1 binding(s) to create, 1 to remove");
  await expect(page.getByTestId("scim-mapping-preview")).toContainText(`${userName.toLowerCase()}: Project Member (project) via ${groupName}`);
  await page.getByRole("button", { name: "Remove mapping 1" }).click();

  // A mapping the gateway refuses is marked on its own row, in the rows' numbering; mended, the marks go.
  browserErrors.allow(/the server responded with a status of 400/, "a mapping without a role is sent on purpose: the browser logs the 400 the row then explains");
  await page.getByRole("button", { name: "Add mapping" }).click();
  await page.getByLabel("Group name 1").fill(groupName);
  await page.getByRole("button", { name: "Preview changes" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "The gateway refused a mapping: see the marked row." })).toBeVisible();
  const role = page.getByLabel("Role 1");
  await expect(role).toHaveAttribute("aria-invalid", "true");
  await expect(role).toHaveAccessibleDescription("Mapping 1: Role: must not be empty");
  await expect(page.getByLabel("Group name 1")).not.toHaveAttribute("aria-invalid", "true");
  await role.selectOption({ label: "Auditor" });
  await expect(page.getByRole("alert").filter({ hasText: "The gateway refused" })).toHaveCount(0);
  await expect(role).not.toHaveAttribute("aria-invalid", "true");
  // So for a refused save; discarded, the draft takes its marks with it (the saved mapping shown is not marked).
  await role.selectOption({ label: "Choose a role" });
  await page.getByRole("button", { name: "Save mappings" }).click();
  await expect(role).toHaveAttribute("aria-invalid", "true");
  await page.getByRole("button", { name: "Discard" }).click();
  await expect(role.locator("option:checked")).toHaveText("Auditor");
  await expect(role).not.toHaveAttribute("aria-invalid", "true");
  await expect(page.getByRole("alert").filter({ hasText: "The gateway refused" })).toHaveCount(0);
  await page.getByRole("button", { name: "Remove mapping 1" }).click();

  // The binding the group grants is not removed by hand on the IAM page: it goes with the group.
  await page.goto(`/orgs/${demo.organization_id}/iam?user_id=${userId}`);
  const viaGroup = page.getByRole("button", { name: new RegExp(`^Stage removal of Auditor for ${userId} on org `) });
  await expect(viaGroup).toBeDisabled();
  await expect(viaGroup).toHaveAccessibleDescription(/^Granted through a SCIM group mapping: it goes when the person leaves the group/);
});
