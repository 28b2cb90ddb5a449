import type { Database } from "../store/client";
import { capacities, images, registryLocations, registryProviders } from "../store/schema";
import { DEMO_LOCATIONS, VM_TYPES } from "./compute";
import { rng } from "./random";

const DAY = 86_400_000;

/** "h100-80gb-sxm-ib.8x" → product group "h100", slices 8. */
export function productGroupOf(type: string): string {
  return type.split("-")[0] ?? type;
}

function slicesOf(type: string): number {
  return Number(/\.(\d+)x$/.exec(type)?.[1] ?? 1);
}

/** PROJECT_QUOTA_TYPE_MAXIMUM_VM_SLICES_H100_80GB_SXM_IB: the quota a VM type consumes. */
function quotaTypeOf(type: string): string {
  return `PROJECT_QUOTA_TYPE_MAXIMUM_VM_SLICES_${type.replace(/\.\d+x$/, "").replace(/[^A-Za-z0-9]+/g, "_").toUpperCase()}`;
}

const IMAGES = [
  { name: "ubuntu", description: "Ubuntu 22.04 LTS base image", tags: ["22.04", "lts"], groups: ["h100", "h200", "a100", "l40s"], regions: "all" },
  { name: "ubuntu", description: "Ubuntu 24.04 LTS base image", tags: ["24.04", "lts", "latest"], groups: ["h100", "h200", "a100", "l40s"], regions: "all" },
  { name: "ubuntu-cuda", description: "Ubuntu 22.04 with CUDA 12.4, cuDNN and the datacenter GPU driver", tags: ["22.04", "cuda-12.4"], groups: ["h100", "h200", "a100", "l40s"], regions: "all" },
  { name: "ubuntu-cuda-ib", description: "Ubuntu 22.04 with CUDA 12.4 and InfiniBand (OFED) drivers for multi-node training", tags: ["22.04", "cuda-12.4", "infiniband"], groups: ["h100", "h200", "a100"], regions: ["us-east1", "us-northcentral1", "eu-north1"] },
  { name: "pytorch", description: "PyTorch 2.4 with CUDA 12.4, NCCL and Python 3.11", tags: ["2.4", "cuda-12.4", "latest"], groups: ["h100", "h200", "a100", "l40s"], regions: "all" },
  { name: "jax", description: "JAX 0.4 with CUDA 12.4 and Python 3.11", tags: ["0.4", "cuda-12.4"], groups: ["h100", "h200", "a100"], regions: ["us-east1", "us-west1"] },
  { name: "vllm-inference", description: "vLLM 0.6 inference server on CUDA 12.4", tags: ["0.6", "inference"], groups: ["h100", "l40s"], regions: ["us-east1", "us-west1", "eu-west2"] },
  { name: "debian", description: "Debian 12 minimal image without GPU drivers", tags: ["12", "minimal"], groups: ["l40s"], regions: ["eu-north1", "eu-west2"] },
] as const;

const PROVIDERS = [
  { id: "docker-hub", description: "Docker Hub" },
  { id: "ghcr", description: "GitHub Container Registry" },
  { id: "quay", description: "Quay.io" },
  { id: "ecr-public", description: "Amazon ECR Public Gallery" },
  { id: "gcr", description: "Google Container Registry" },
  { id: "nvcr", description: "NVIDIA NGC catalog" },
];

/**
 * The catalog: capacity per VM type and location, images with the product groups
 * they boot on, and the registry's locations and upstream providers. Draws from
 * its own PRNG stream so other areas' demo data stays the same.
 */
export async function seedCatalog(db: Database, now: Date): Promise<void> {
  const r = rng(20_260_212);
  const rows = DEMO_LOCATIONS.flatMap((location) =>
    VM_TYPES.flatMap((type) => {
      // Not every type is offered everywhere: about one pair in five is missing.
      if (r.next() < 0.2) return [];
      const slices = slicesOf(type);
      return [{ id: r.uuid(), type, location: location.id, quantity: r.int(0, 64 / slices), numSlices: slices, quotaType: quotaTypeOf(type) }];
    }),
  );
  await db.insert(capacities).values(rows);

  const allRegions = [...new Set(DEMO_LOCATIONS.map((l) => l.region))];
  await db.insert(images).values(
    IMAGES.map((image, i) => ({
      id: r.uuid(),
      name: image.name,
      description: image.description,
      tags: [...image.tags],
      locations: image.regions === "all" ? allRegions : [...image.regions],
      productGroups: [...image.groups],
      createdAt: new Date(now.getTime() - (400 - i * 37) * DAY),
    })),
  );

  await db.insert(registryLocations).values(["us-east1", "us-northcentral1", "eu-north1"].map((id) => ({ id })));
  await db.insert(registryProviders).values(PROVIDERS);
}
