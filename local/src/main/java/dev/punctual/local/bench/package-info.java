/**
 * Every benchmark {@code main}, each printing the figures it measures; run them from the runtime's jar
 * after {@code mvn -B -q -pl local -am package -DskipTests}:
 * <ul>
 *   <li>{@link dev.punctual.local.bench.EngineBenchmark}: the ASL engine (pending executions held, restart
 *       time, timer lateness, wake-up to task call, StartExecution over HTTP, journal size);</li>
 *   <li>{@link dev.punctual.local.bench.DeleteFloorBenchmark}: how fast DynamoDB Local deletes 1,000 items
 *       due at once, the floor under the expiry lag;</li>
 *   <li>{@link dev.punctual.local.bench.TimerBenchmark}: the engine timer's lateness and memory;</li>
 *   <li>{@link dev.punctual.local.bench.StreamLatencyProbe}: the delay from a put to the stream poller
 *       handing its record to a function;</li>
 *   <li>{@link dev.punctual.local.bench.BackfillBenchmark}: adopting a table that already holds items (how long
 *       the backfill takes, open executions, heap, and how late items are deleted).</li>
 * </ul>
 * The end-to-end figures come from {@code punctual bench} and {@code punctual demo} instead.
 */
package dev.punctual.local.bench;
