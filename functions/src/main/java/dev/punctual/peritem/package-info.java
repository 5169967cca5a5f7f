/**
 * Per-item mode: one {@code expire-item} execution per item and TTL. What the mode makes of the rules'
 * decisions lives here, none of it in the core: the execution's name and input
 * ({@link dev.punctual.peritem.ExecutionInput}: horizon hops, chain name), Step Functions' payload limit
 * on that input, and the stale executions a TTL change or an early delete leaves
 * ({@link dev.punctual.peritem.ItemPlan}); then starting, restarting and stopping them
 * ({@link dev.punctual.peritem.ItemScheduler}, the mode's {@link dev.punctual.expiry.Scheduler}).
 * Windowed mode's counterpart is {@code dev.punctual.windowed}.
 */
package dev.punctual.peritem;
