import { parseArgs } from "node:util";
import { env } from "@/lib/env";
import { errorDetail } from "@/lib/error-detail";
import type { Relation } from "./authz";
import { addMember, createApiKey, createOrganization, createUser, findOrganization, findUser, listApiKeys, revokeApiKey } from "./admin";
import { loadMasterKey } from "./crypto";
import { confirmMasterKey } from "./master-key-check";
import { runServer } from "./server";
import { openStore, type Database } from "./store/client";

const USAGE = `Usage: npm run gateway [-- <command> [options]]

  (no command) | serve                       run the gateway (PORT, STRATUS_DATA_DIR, DATABASE_URL)
  create-user --email E [--name N] [--org ORG_ID --relation owner|member]
  create-org --name N --owner USER_ID_OR_EMAIL [--company C]
  add-member --org ORG_ID --user USER_ID_OR_EMAIL [--relation owner|member]
  create-key --user USER_ID_OR_EMAIL [--name N]   prints the secret once
  list-keys [--user USER_ID_OR_EMAIL]
  revoke-key ACCESS_KEY_ID
`;

async function main(): Promise<void> {
  const [command = "serve", ...rest] = process.argv.slice(2);
  if (command === "serve") return runServer();
  if (command === "help" || command === "--help") {
    process.stdout.write(USAGE);
    return;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      email: { type: "string" },
      name: { type: "string" },
      org: { type: "string" },
      owner: { type: "string" },
      user: { type: "string" },
      company: { type: "string" },
      relation: { type: "string" },
    },
  });
  const config = env();
  const dataDir = config.STRATUS_DATA_DIR;
  const store = await openStore(config.DATABASE_URL ? { kind: "postgres", url: config.DATABASE_URL } : { kind: "pglite", dataDir });
  const db = store.db;
  const need = (name: keyof typeof values) => {
    const v = values[name];
    if (!v) throw new Error(`--${name} is required\n\n${USAGE}`);
    return v;
  };
  const user = async (ref: string) => {
    const u = await findUser(db, ref);
    if (!u) throw new Error(`no user ${ref}`);
    return u;
  };
  const relationOf = (): Relation => {
    const r = values.relation ?? "member";
    if (r !== "owner" && r !== "member") throw new Error("--relation must be owner or member");
    return r;
  };
  const organization = async (id: string) => {
    if (!(await findOrganization(db, id))) throw new Error(`no organization ${id}`);
    return id;
  };
  /** A command's writes, all or none: one refused halfway (a name taken) leaves nothing behind to get in a retry's way. */
  const atomically = <T>(write: (tx: Database) => Promise<T>) => db.transaction((tx) => write(tx as unknown as Database));
  const print = (o: unknown) => process.stdout.write(JSON.stringify(o, null, 2) + "\n");
  try {
    switch (command) {
      case "create-user": {
        // Every argument is checked before anything is written.
        const email = need("email");
        const membership = values.org ? { org: await organization(values.org), relation: relationOf() } : null;
        const u = await atomically(async (tx) => {
          const created = await createUser(tx, { email, name: values.name });
          if (membership) await addMember(tx, membership.org, created.id, membership.relation);
          return created;
        });
        print({ user_id: u.id, email: u.email });
        break;
      }
      case "create-org": {
        const name = need("name");
        const owner = await user(need("owner"));
        const org = await atomically((tx) => createOrganization(tx, { name, ownerId: owner.id, companyName: values.company }));
        print({ organization_id: org.id, name: org.name, owner: owner.email });
        break;
      }
      case "add-member": {
        const org = await organization(need("org"));
        const u = await user(need("user"));
        const relation = relationOf();
        await atomically((tx) => addMember(tx, org, u.id, relation));
        print({ organization_id: org, user_id: u.id, relation });
        break;
      }
      case "create-key": {
        const u = await user(need("user"));
        const masterKey = loadMasterKey(config.STRATUS_MASTER_KEY, dataDir);
        // A secret sealed with a key other than the gateways' would be a key no gateway can verify.
        await confirmMasterKey(db, masterKey);
        const key = await createApiKey(db, masterKey, u.id, values.name ?? "");
        print({ user_id: u.id, access_key_id: key.accessKeyId, secret_key: key.secretKey, note: "the secret is shown only now" });
        break;
      }
      case "list-keys": {
        const u = values.user ? await user(values.user) : undefined;
        print((await listApiKeys(db, u?.id)).map((k) => ({ ...k, status: k.revokedAt ? "revoked" : "active" })));
        break;
      }
      case "revoke-key": {
        const id = positionals[0];
        if (!id) throw new Error(`revoke-key needs an access key id\n\n${USAGE}`);
        if (!(await revokeApiKey(db, id))) throw new Error(`no active key ${id}`);
        print({ access_key_id: id, status: "revoked" });
        break;
      }
      default:
        throw new Error(`unknown command ${command}\n\n${USAGE}`);
    }
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  // What the store said, not the statement and its parameters (Drizzle's message repeats both: e-mails, sealed secrets).
  process.stderr.write(`${errorDetail(error)}\n`);
  process.exit(1);
});
