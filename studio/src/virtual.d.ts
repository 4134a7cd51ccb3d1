/** The contract's ClubConfig JSON Schema, compiled by Ajv at build time (studio/scripts/build.mjs). */
declare module "virtual:club-config-validator" {
  interface ValidationError {
    instancePath: string;
    keyword: string;
    message?: string;
    params: Record<string, unknown>;
  }
  const validate: ((data: unknown) => boolean) & { errors?: ValidationError[] | null };
  export default validate;
}
