import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { organizations } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const locations = pgTable("locations", {
  id: text("id").primaryKey(),
  region: text("region").notNull(),
  description: text("description").notNull().default(""),
});

export const projects = pgTable(
  "projects",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("projects_org_name_uq").on(t.organizationId, t.name)],
);

export const vms = pgTable(
  "vms",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    type: text("type").notNull(),
    location: text("location").notNull(),
    state: text("state").notNull(),
    commitmentEnd: text("commitment_end").notNull().default(""),
    commitmentPeriod: integer("commitment_period").notNull().default(0),
    sshDestination: text("ssh_destination").notNull().default(""),
    hostChannelAdapters: jsonb("host_channel_adapters").$type<unknown[]>().notNull().default([]),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("vms_project_idx").on(t.projectId), index("vms_org_idx").on(t.organizationId)],
);

export const disks = pgTable(
  "disks",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** The VM the disk is attached to; deleting the VM deletes its disks. */
    vmId: text("vm_id").references(() => vms.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    type: text("type").notNull(),
    size: text("size").notNull(),
    blockSize: integer("block_size").notNull(),
    attachmentType: text("attachment_type").notNull(),
    mode: text("mode").notNull(),
    location: text("location").notNull(),
    serialNumber: text("serial_number").notNull(),
    position: integer("position").notNull().default(0),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("disks_project_idx").on(t.projectId), index("disks_vm_idx").on(t.vmId)],
);

export interface IpEntry {
  private_ipv4?: { address: string };
  public_ipv4?: { address: string; id: string; type: string };
}

export const networkInterfaces = pgTable(
  "network_interfaces",
  {
    id: text("id").primaryKey(),
    vmId: text("vm_id")
      .notNull()
      .references(() => vms.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    interfaceType: text("interface_type").notNull(),
    macAddress: text("mac_address").notNull(),
    network: text("network").notNull(),
    subnet: text("subnet").notNull(),
    ips: jsonb("ips").$type<IpEntry[]>().notNull().default([]),
    position: integer("position").notNull().default(0),
  },
  (t) => [index("nics_vm_idx").on(t.vmId)],
);
