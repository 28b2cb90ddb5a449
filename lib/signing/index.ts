export * from "./canonical-query";
export * from "./signature";
