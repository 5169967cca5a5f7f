/**
 * Every name Punctual gives an execution, one value type per workflow, each with the one parser of
 * its names: {@link dev.punctual.names.ItemExecutionName} ({@code expire-item}),
 * {@link dev.punctual.names.BucketExecutionName} ({@code expire-bucket}) and
 * {@link dev.punctual.names.BackfillExecutionName} ({@code backfill}); beside them the
 * {@link dev.punctual.names.Digests} that name other things (index chunks, expiry events, keys in
 * log lines). Names are deterministic, so whoever needs an execution, a duplicate record, a retried
 * batch or a backfill, names the same one and Step Functions starts it once: a name made here must
 * stay byte for byte what it was, and tests pin each kind.
 *
 * <p>Names keep to printable ASCII, though Step Functions accepts more: the state machines log to
 * CloudWatch Logs, which wants names of ASCII letters, digits, {@code -} and {@code _}. Table
 * labels turn anything else into {@code _}, except the {@code .} a DynamoDB table name may hold,
 * which names have always kept.
 *
 * <p>This package depends on {@code dev.punctual.expiry}'s value types ({@code ItemKey},
 * {@code TtlValue}) for what an item's name digests, and on nothing else of the core.
 */
package dev.punctual.names;
