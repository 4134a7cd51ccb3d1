import type { Handlers, OperationId } from "../../../generated/operations.js";
import type { RequestContext } from "../http/router.js";

/** The handlers of a group of operations; index.ts joins the groups into the full `Handlers`. */
export type HandlerSet<Op extends OperationId> = Pick<Handlers<RequestContext>, Op>;
