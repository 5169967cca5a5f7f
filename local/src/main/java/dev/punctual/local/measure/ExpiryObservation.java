package dev.punctual.local.measure;

import java.time.Instant;

/**
 * What happened to one item written by {@code demo} or {@code bench}.
 *
 * @param ttl the item's exact TTL instant (fractional seconds kept)
 * @param deletedAt when Punctual's conditional delete completed (from the execution history), or
 *     {@code null} if no execution deleted it
 * @param stillPresent whether the item was still in the table when the run checked, after every TTL
 *     had passed
 * @param seenGoneEarly whether a table read that started before the TTL found the item already gone
 */
public record ExpiryObservation(Instant ttl, Instant deletedAt, boolean stillPresent, boolean seenGoneEarly) {
}
