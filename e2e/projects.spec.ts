import type { Page } from "@playwright/test";
import { bffPath, expect, openWith, test } from "./fixtures";

interface ApiProject {
  id: string;
  name: string;
  organization_id: string;
}

const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

/** The caller's projects of that exact name, through the console's backend. */
async function projectsNamed(page: Page, name: string): Promise<ApiProject[]> {
  const res = await page.request.get(`${bffPath("listProjects")}?project_name=${encodeURIComponent(name)}`);
  expect(res.ok()).toBe(true);
  return ((await res.json()) as { items: ApiProject[] }).items;
}

async function deleteIfPresent(page: Page, ...names: string[]) {
  for (const name of names) for (const p of await projectsNamed(page, name)) await page.request.delete(bffPath("deleteProject", { project_id: p.id }));
}

const projectsTable = (page: Page) => page.getByRole("table", { name: "Projects" });
const projectRow = (page: Page, name: string) => projectsTable(page).getByRole("row").filter({ has: page.getByRole("link", { name, exact: true }) });

test.describe("projects", () => {
  test("the owner creates, renames and deletes a project, typing its name to confirm", async ({ ownerPage: page, demo, browserErrors }) => {
    browserErrors.allow(/the server responded with a status of 400/, "a rename to a taken name is refused on purpose: the browser logs the 400");
    const name = unique("e2e-proj");
    const renamed = `${name}-renamed`;
    try {
      await page.goto(`/orgs/${demo.organization_id}/projects`);
      await expect(page.getByRole("heading", { level: 1, name: "Projects" })).toBeVisible();

      await page.getByRole("button", { name: "Create project" }).click();
      const create = page.getByRole("dialog", { name: "Create project" });
      // Client validation first: an empty name is refused in place.
      await create.getByRole("button", { name: "Create", exact: true }).click();
      await expect(create.getByText("must not be empty")).toBeVisible();
      await create.getByLabel("Project name").fill(name);
      await create.getByRole("button", { name: "Create", exact: true }).click();
      await expect(create).toBeHidden();
      await expect(page.getByText(`Project ${name} created`)).toBeVisible();
      const row = projectRow(page, name);
      await expect(row).toBeVisible();
      // A new project holds nothing: VMs and disks are 0.
      await expect(row.getByRole("cell").nth(2)).toHaveText("0");
      await expect(row.getByRole("cell").nth(3)).toHaveText("0");

      // Rename in place; the gateway's 400 for a taken name shows under the field.
      await row.getByRole("button", { name: `Rename ${name}` }).click();
      const field = page.getByLabel(`New name for ${name}`);
      await field.fill("staging");
      await field.press("Enter");
      await expect(page.getByRole("alert").filter({ hasText: 'a project named "staging" already exists' })).toBeVisible();
      await field.fill(renamed);
      await field.press("Enter");
      await expect(projectRow(page, renamed)).toBeVisible();
      await expect(page.getByRole("link", { name, exact: true })).toHaveCount(0);

      // Delete: the dialog says what goes with it and waits for the exact name.
      await projectRow(page, renamed).getByRole("button", { name: `Delete ${renamed}` }).click();
      const dialog = page.getByRole("dialog", { name: `Delete project ${renamed}?` });
      await expect(dialog.getByRole("list", { name: "Deleted with the project" })).toContainText("0 VMs");
      await expect(dialog.getByRole("list", { name: "Deleted with the project" })).toContainText("0 network interfaces");
      const confirm = dialog.getByRole("button", { name: "Delete project" });
      await expect(confirm).toBeDisabled();
      await dialog.getByLabel(`Type ${renamed} to confirm`).fill(name);
      await expect(confirm).toBeDisabled();
      await dialog.getByLabel(`Type ${renamed} to confirm`).fill(renamed);
      await confirm.click();
      await expect(dialog).toBeHidden();
      await expect(page.getByText(`Project ${renamed} deleted`)).toBeVisible();
      await expect(page.getByRole("link", { name: renamed, exact: true })).toHaveCount(0);
      expect(await projectsNamed(page, renamed)).toEqual([]);
    } finally {
      await deleteIfPresent(page, name, renamed);
    }
  });

  test("the delete dialog lists the VMs, disks and network interfaces that go with a project", async ({ ownerPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}/projects`);
    const dialog = page.getByRole("dialog", { name: "Delete project llm-training?" });
    await openWith(projectRow(page, "llm-training").getByRole("button", { name: "Delete llm-training" }), dialog);
    const list = dialog.getByRole("list", { name: "Deleted with the project" });
    const items = list.getByRole("listitem");
    await expect(items.nth(0)).toHaveText(/^6 VMs: llm-\d+(, llm-\d+){5}$/);
    await expect(items.nth(1)).toHaveText(/^([6-9]|1[0-2]) disks$/);
    await expect(items.nth(2)).toHaveText(/^([6-9]|1[0-2]) network interfaces$/);
    await expect(items.last()).toHaveText("the role bindings that grant access to this project");
    await expect(dialog.getByRole("button", { name: "Delete project" })).toBeDisabled();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    await expect(projectRow(page, "llm-training")).toBeVisible();
  });

  test("the exact-name search lives in the URL and survives reload and back", async ({ ownerPage: page, demo }) => {
    const base = `/orgs/${demo.organization_id}/projects`;
    await page.goto(base);
    await expect(projectRow(page, "staging")).toBeVisible();
    const search = page.getByRole("searchbox", { name: "Exact project name" });
    await search.fill("inference-prod");
    await search.press("Enter");
    await expect(page).toHaveURL(/project_name=inference-prod/);
    await expect(projectsTable(page).getByRole("link")).toHaveText(["inference-prod"]);

    await page.reload();
    await expect(page.getByRole("searchbox", { name: "Exact project name" })).toHaveValue("inference-prod");
    await expect(projectsTable(page).getByRole("link")).toHaveText(["inference-prod"]);

    // Exact, not a prefix match.
    await search.fill("inference");
    await search.press("Enter");
    await expect(page.getByText("No project is named “inference”")).toBeVisible();

    await page.goBack();
    await expect(page).toHaveURL(/project_name=inference-prod/);
    await expect(projectsTable(page).getByRole("link")).toHaveText(["inference-prod"]);
    await page.getByRole("button", { name: "Clear" }).click();
    await expect(page).not.toHaveURL(/project_name=/);
    await expect(projectRow(page, "staging")).toBeVisible();
  });

  test("the projects table sorts by a column one way, then the other", async ({ ownerPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}/projects`);
    const table = projectsTable(page);
    await expect(table.locator("tbody tr").first()).toBeVisible();
    const header = table.getByRole("columnheader", { name: "VMs" });
    const counts = async () => (await table.locator("tbody tr td:nth-child(3)").allTextContents()).map(Number);
    const ordered = (values: number[], direction: string | null) =>
      values.every((v, i) => i === 0 || (direction === "ascending" ? values[i - 1]! <= v : values[i - 1]! >= v));
    await expect(header).not.toHaveAttribute("aria-sort", /./);

    // The table hydrates after the rest of the page: a click before then does nothing, so click until it sorts.
    await expect(async () => {
      if (!(await header.getAttribute("aria-sort"))) await header.getByRole("button").click();
      await expect(header).toHaveAttribute("aria-sort", /^(ascending|descending)$/, { timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    const first = await header.getAttribute("aria-sort");
    await expect.poll(async () => ordered(await counts(), first)).toBe(true);
    expect(new Set(await counts()).size).toBeGreaterThan(1);

    await header.getByRole("button").click();
    const second = first === "ascending" ? "descending" : "ascending";
    await expect(header).toHaveAttribute("aria-sort", second);
    await expect.poll(async () => ordered(await counts(), second)).toBe(true);
  });

  test("the member sees create disabled with the reason, and only their 3 projects", async ({ memberPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}/projects`);
    const reason = "You need the projects.create permission in this organization to create projects.";
    const create = page.getByRole("button", { name: "Create project" });
    await expect(create).toBeDisabled();
    await expect(create).toHaveAccessibleDescription(reason);
    await expect(page.locator("p", { hasText: reason })).toBeVisible();
    await expect(projectsTable(page).getByRole("link")).toHaveText(["inference-prod", "llm-training", "research-sandbox"]);
    await expect(projectsTable(page)).not.toContainText("staging");
  });

  test("a member's project actions follow their real permissions on each project, with the reason", async ({ memberPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}/projects`);
    // Project Member on inference-prod: the role grants neither projects.update nor projects.delete.
    const rename = projectRow(page, "inference-prod").getByRole("button", { name: "Rename inference-prod" });
    await expect(rename).toBeDisabled();
    await expect(rename).toHaveAccessibleDescription(/can't rename this project: it needs the projects\.update permission\. Your role on this project does not grant it/);
    const remove = projectRow(page, "inference-prod").getByRole("button", { name: "Delete inference-prod" });
    await expect(remove).toBeDisabled();
    await expect(remove).toHaveAccessibleDescription(/projects\.delete/);
    // Project Admin on llm-training: both are offered.
    await expect(projectRow(page, "llm-training").getByRole("button", { name: "Rename llm-training" })).toBeEnabled();
    await expect(projectRow(page, "llm-training").getByRole("button", { name: "Delete llm-training" })).toBeEnabled();
    // The project page says the same.
    await page.getByRole("link", { name: "inference-prod", exact: true }).click();
    await expect(page.getByRole("heading", { level: 1, name: "inference-prod" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Rename" })).toBeDisabled();
  });

  test("a person who may only create projects renames and deletes the one they create, without a reload", async ({ ownerPage, auditorPage: page, demo }) => {
    const orgId = demo.organization_id;
    const auditor = demo.auditor.user_id;
    const roles = (await (await ownerPage.request.get(bffPath("listRoles"))).json()) as { roles: Array<{ id: string; role_name: string; org_id: string }> };
    const creator = roles.roles.find((r) => r.org_id === orgId && r.role_name === "Project Creator")!;
    const apply = (body: unknown) => ownerPage.request.post(bffPath("applyRoleBindings", { user_id: auditor }), { data: body });
    expect((await apply({ bindings_to_create: [{ customer_id: auditor, role_id: creator.id, scope_type: "org", scope_object_id: orgId }], bindings_to_delete: [] })).ok()).toBe(true);
    const name = unique("e2e-creator");
    try {
      await page.goto(`/orgs/${orgId}/projects`);
      const create = page.getByRole("dialog", { name: "Create project" });
      await openWith(page.getByRole("button", { name: "Create project" }), create);
      await create.getByLabel("Project name").fill(name);
      await create.getByRole("button", { name: "Create", exact: true }).click();
      await expect(page.getByText(`Project ${name} created`)).toBeVisible();
      // The maker holds Project Admin on it from now on: the list offers both at once.
      await expect(projectRow(page, name).getByRole("button", { name: `Rename ${name}` })).toBeEnabled();
      await expect(projectRow(page, name).getByRole("button", { name: `Delete ${name}` })).toBeEnabled();
    } finally {
      await deleteIfPresent(ownerPage, name);
      const bindings = (await (await ownerPage.request.get(`${bffPath("listRoleBindings")}?user_id=${auditor}`)).json()) as { role_bindings: Array<{ id: string; role_name: string }> };
      const granted = bindings.role_bindings.filter((b) => b.role_name === "Project Creator").map((b) => b.id);
      expect((await apply({ bindings_to_create: [], bindings_to_delete: granted })).ok()).toBe(true);
    }
  });

  test("the project page shows its resources and VMs with state, disks, MAC and IP addresses", async ({ ownerPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}/projects`);
    await page.getByRole("link", { name: "llm-training", exact: true }).click();
    await expect(page.getByRole("heading", { level: 1, name: "llm-training" })).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`/orgs/${demo.organization_id}/projects/[0-9a-f-]{36}$`));

    const vms = page.getByRole("table", { name: "VMs of llm-training" });
    const rows = vms.getByRole("row");
    await expect(rows).toHaveCount(7); // header + 6 VMs
    const first = rows.nth(1);
    await expect(first).toContainText(/Running|Stopped|Provisioning|Stopping|Failed/);
    await expect(first).toContainText(/\.\d+x/); // VM type such as h100-80gb-sxm-ib.8x
    await expect(first).toContainText(/(us|eu)-[a-z]+\d-[a-z]/); // location
    await expect(first).toContainText(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}/); // created
    await expect(first.getByRole("list", { name: /^Disks of / })).toContainText(/\d+GiB read-write · persistent-ssd/);
    const nics = first.getByRole("list", { name: /^Network interfaces of / });
    await expect(nics).toContainText(/eth0 02(:[0-9a-f]{2}){5}/);
    await expect(nics).toContainText(/private 10\.\d+\.\d+\.\d+/);
    await expect(nics).toContainText(/public \d+\.\d+\.\d+\.\d+ \(dynamic\)/);
    await expect(page.getByRole("term").filter({ hasText: "VMs" }).locator("xpath=following-sibling::dd[1]")).toHaveText("6");
  });

  test("the member opens a project of theirs, and is told a project they are not in is not found", async ({ memberPage, ownerPage, demo, browserErrors }) => {
    browserErrors.allow(/the server responded with a status of 404/, "a project the member is not in is not found: the browser logs the 404");
    const [hidden] = await projectsNamed(ownerPage, "data-pipeline");
    expect(hidden).toBeDefined();
    await memberPage.goto(`/orgs/${demo.organization_id}/projects`);
    await memberPage.getByRole("link", { name: "inference-prod", exact: true }).click();
    await expect(memberPage.getByRole("heading", { level: 1, name: "inference-prod" })).toBeVisible();
    await expect(memberPage.getByRole("table", { name: "VMs of inference-prod" }).getByRole("row")).toHaveCount(6);

    await memberPage.goto(`/orgs/${demo.organization_id}/projects/${hidden!.id}`);
    const alert = memberPage.getByRole("alert").filter({ hasText: "Could not load this project" });
    await expect(alert).toContainText("not found");
    await expect(memberPage.getByRole("link", { name: "All projects" })).toBeVisible();
  });
});
