export * from "./identity";
export * from "./iam";
export * from "./compute";
export * from "./flags";
export * from "./audit";
