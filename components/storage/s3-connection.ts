/** Where S3 clients reach the object storage (the console's STRATUS_S3_ENDPOINT and STRATUS_S3_REGION). */
export interface S3Connection {
  endpoint: string;
  region: string;
}
