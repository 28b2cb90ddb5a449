import { createLoader, parseAsString } from "nuqs/server";

/** The projects list's URL state, read by the page on the server and by the table in the browser. */
export const projectSearchParams = {
  project_name: parseAsString.withDefault(""),
};

export const loadProjectSearch = createLoader(projectSearchParams);
