/** The widget's gzipped sizes in bytes (widget/dist must be built). */
export function measureWidget(): Promise<{ loader: number; app: number }>;
/** The budget `npm run widget:size` enforces, in gzipped bytes. */
export const BUDGET: { loader: number; app: number };
