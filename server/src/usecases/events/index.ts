// The events domain's public face: what other folders may use of it.
export { checkEngineInputs } from "./event-inputs.js";
export { getLoggedEvent, listEventLog, purgeOldTraces } from "./event-log.js";
export { handEventsToJobs } from "./hand-off.js";
export { GROUP_CAP, ingestBatch, ingestEvent, processQueuedEvent, queueEvents, queuedEventIds } from "./ingest.js";
