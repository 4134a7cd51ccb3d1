/** Builds Clube Studio into studio/dist and returns that directory. */
export function buildStudio(): Promise<string>;
export const DIST: string;
