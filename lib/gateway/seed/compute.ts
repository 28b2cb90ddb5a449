import type { Database } from "../store/client";
import { disks, locations, networkInterfaces, vms } from "../store/schema";
import type { Rng } from "./random";

export const DEMO_LOCATIONS = [
  { id: "us-east1-a", region: "us-east1", description: "Virginia, USA" },
  { id: "us-east1-b", region: "us-east1", description: "Virginia, USA" },
  { id: "us-northcentral1-a", region: "us-northcentral1", description: "Illinois, USA" },
  { id: "us-west1-a", region: "us-west1", description: "Oregon, USA" },
  { id: "eu-north1-a", region: "eu-north1", description: "Stockholm, Sweden" },
  { id: "eu-west2-a", region: "eu-west2", description: "London, UK" },
];

export const VM_TYPES = [
  "h100-80gb-sxm-ib.8x",
  "h200-141gb-sxm-ib.8x",
  "a100-80gb-sxm-ib.8x",
  "l40s-48gb.1x",
  "l40s-48gb.4x",
  "a100-80gb-pcie.2x",
] as const;

const STATES = ["STATE_RUNNING", "STATE_RUNNING", "STATE_RUNNING", "STATE_RUNNING", "STATE_STOPPED", "STATE_PROVISIONING", "STATE_STOPPING", "STATE_FAILED"];

export async function seedLocations(db: Database) {
  await db.insert(locations).values(DEMO_LOCATIONS).onConflictDoNothing();
}

function mac(r: Rng): string {
  return ["02", ...Array.from({ length: 5 }, () => r.int(0, 255).toString(16).padStart(2, "0"))].join(":");
}

/** VMs with an OS disk, sometimes a data disk, and one or two network interfaces. */
export async function seedVms(
  db: Database,
  r: Rng,
  input: { organizationId: string; projectId: string; count: number; namePrefix: string; network: string; subnet: string; now: Date },
) {
  for (let i = 1; i <= input.count; i++) {
    const id = r.uuid();
    const location = r.pick(DEMO_LOCATIONS).id;
    const type = r.pick(VM_TYPES);
    const created = new Date(input.now.getTime() - r.int(1, 170) * 86_400_000 - r.int(0, 86_399) * 1000);
    const committed = r.next() < 0.3;
    const commitmentEnd = committed ? new Date(created.getTime() + 365 * 86_400_000).toISOString() : "";
    const publicIp = `203.0.113.${r.int(2, 254)}`;
    await db.insert(vms).values({
      id,
      organizationId: input.organizationId,
      projectId: input.projectId,
      name: `${input.namePrefix}-${String(i).padStart(2, "0")}`,
      type,
      location,
      state: r.pick(STATES),
      commitmentEnd,
      commitmentPeriod: committed ? 12 : 0,
      sshDestination: `ubuntu@${publicIp}`,
      hostChannelAdapters: [],
      createdAt: created,
      updatedAt: created,
    });
    const diskValues = [
      { name: `${input.namePrefix}-${i}-os`, size: `${r.pick([100, 200, 500])}GiB`, attachmentType: "os" },
      ...(r.next() < 0.6 ? [{ name: `${input.namePrefix}-${i}-data`, size: `${r.pick([1024, 2048, 4096])}GiB`, attachmentType: "data" }] : []),
    ];
    await db.insert(disks).values(
      diskValues.map((d, position) => ({
        id: r.uuid(),
        projectId: input.projectId,
        vmId: id,
        name: d.name,
        type: "persistent-ssd",
        size: d.size,
        blockSize: 4096,
        attachmentType: d.attachmentType,
        mode: "read-write",
        location,
        serialNumber: `SN${r.int(10_000_000, 99_999_999)}`,
        position,
        createdAt: created,
        updatedAt: created,
      })),
    );
    const nicCount = type.includes("-ib.") ? 2 : 1;
    await db.insert(networkInterfaces).values(
      Array.from({ length: nicCount }, (_, position) => ({
        id: r.uuid(),
        vmId: id,
        name: `eth${position}`,
        interfaceType: "Ethernet",
        macAddress: mac(r),
        network: input.network,
        subnet: input.subnet,
        ips: [
          {
            private_ipv4: { address: `10.${r.int(0, 15)}.${r.int(0, 255)}.${r.int(2, 254)}` },
            ...(position === 0 ? { public_ipv4: { address: publicIp, id: r.uuid(), type: "dynamic" } } : {}),
          },
        ],
        position,
      })),
    );
  }
}
