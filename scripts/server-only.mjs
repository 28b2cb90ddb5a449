// Lets a script run lib/console's server modules outside Next.js: there, "server-only" resolves to
// nothing on the server (and fails a browser bundle); here it resolves to the package's empty module.
import { register } from "node:module";

const empty = new URL("../node_modules/server-only/empty.js", import.meta.url).href;
const hooks = `export async function resolve(specifier, context, next) {
  return specifier === "server-only" ? { url: ${JSON.stringify(empty)}, shortCircuit: true } : next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
