import { createLoader, parseAsString, parseAsStringLiteral } from "nuqs/server";
import { PERSON_STATUSES } from "@/lib/contract/constants";

/** The People page's filters and page tokens, kept in the URL. */
export const peopleSearchParams = {
  q: parseAsString.withDefault(""),
  status: parseAsStringLiteral(PERSON_STATUSES),
  next: parseAsString,
  prev: parseAsString,
};

export const loadPeopleSearchParams = createLoader(peopleSearchParams);

export const PEOPLE_PAGE_SIZE = "50";
