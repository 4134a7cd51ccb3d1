/** Builds the widget into widget/dist and returns that directory. */
export function buildWidget(): Promise<string>;
export const DIST: string;
