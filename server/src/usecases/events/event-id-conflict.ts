import type { Event } from "../../db/entities/index.js";
import { ApiError } from "../shared/errors.js";

/** What a repeat is compared on: the stored event under the same key. */
export type StoredOriginal = Pick<Event, "id" | "effects" | "participantId" | "type">;

/**
 * A repeat must be the same fact: an event whose key (the `Idempotency-Key`
 * header, else its `id`) was stored for another participant or another type
 * is refused with 409 `event_id_conflict` instead of answering the first
 * event's effects (which would hide that nothing was applied, and show the
 * first participant's result to the second). The amount and the other fields
 * may differ: they are corrections of the same fact, answered as a repeat.
 */
export function assertSameEvent(original: StoredOriginal, key: string, participantId: string, type: string): void {
  if (original.participantId === participantId && original.type === type) return;
  throw new ApiError(
    409,
    "event_id_conflict",
    `Event key '${key}' was already used for another ${original.participantId === participantId ? "event type" : "participant"}; send this event with its own id.`,
  );
}
