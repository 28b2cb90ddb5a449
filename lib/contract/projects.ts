import { z } from "zod";
import { idSchema, nameSchema, queryBoolean, requiredString } from "./common";

const resourceDetails = z.object({ count: z.number().int() }).meta({ id: "ProjectResourceDetails" });

export const projectResourcesSchema = z
  .object({
    instances: resourceDetails,
    disks: resourceDetails,
    snapshots: resourceDetails,
    images: resourceDetails,
    vpc_networks: resourceDetails,
  })
  .meta({ id: "ProjectResources" });

export const projectSchema = z
  .object({
    id: z.string(),
    organization_id: z.string(),
    name: z.string(),
    relation: z.string(),
    resources: projectResourcesSchema,
  })
  .meta({ id: "Project" });

export const listProjectsQuerySchema = z.object({
  org_id: idSchema.optional(),
  project_name: z.string().max(255, "must be at most 255 characters").optional(),
  skip_loading_project_resources: queryBoolean,
});

export const listProjectsResponseSchema = z.object({ items: z.array(projectSchema) }).meta({ id: "ListProjectsResponseV1" });

export const projectsPostRequestSchema = z
  .object({
    organization_id: requiredString().trim().min(1, "is required").max(128),
    name: nameSchema,
  })
  .meta({ id: "ProjectsPostRequest" });

export const projectsPutRequestSchema = z.object({ name: nameSchema }).meta({ id: "ProjectsPutRequest" });

export const projectsPutQuerySchema = z.object({
  project_id: requiredString().trim().min(1, "is required").max(128),
});

export const projectPathSchema = z.object({ project_id: idSchema });

export const projectsPutPostResponseSchema = z.object({ project: projectSchema }).meta({ id: "ProjectsPutPostResponseV1" });

// The VM shape of the spec (the command-line client's JSON), for the console's project page.
export const ipEntrySchema = z
  .object({
    private_ipv4: z.object({ address: z.string() }).optional(),
    public_ipv4: z.object({ address: z.string(), id: z.string(), type: z.string() }).optional(),
  })
  .meta({ id: "IpEntry" });

export const networkInterfaceSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    interface_type: z.string(),
    mac_address: z.string(),
    network: z.string(),
    subnet: z.string(),
    ips: z.array(ipEntrySchema),
  })
  .meta({ id: "NetworkInterface" });

export const diskSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.string(),
    size: z.string(),
    block_size: z.number().int(),
    attachment_type: z.string(),
    mode: z.string(),
    location: z.string(),
    serial_number: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Disk" });

export const vmSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.string(),
    location: z.string(),
    project_id: z.string(),
    state: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    commitment_end: z.string(),
    commitment_period: z.number().int(),
    ssh_destination: z.string(),
    host_channel_adapters: z.array(z.unknown()),
    disks: z.array(diskSchema),
    network_interfaces: z.array(networkInterfaceSchema),
  })
  .meta({ id: "VM" });

export const listVmsResponseSchema = z.object({ items: z.array(vmSchema) }).meta({ id: "ListVMsResponse" });

export type Project = z.infer<typeof projectSchema>;
export type Vm = z.infer<typeof vmSchema>;
