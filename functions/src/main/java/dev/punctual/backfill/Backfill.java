package dev.punctual.backfill;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.Sleeper;
import dev.punctual.expiry.AttributeType;
import dev.punctual.expiry.Decision;
import dev.punctual.expiry.ExecutionNames;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ExpiryRules;
import dev.punctual.expiry.ExpiryScheduler;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.Reason;
import dev.punctual.expiry.StreamChange;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * Schedules the items a table already holds: a parallel Scan that reads only the key and the TTL
 * attribute and feeds every item through the same rules and names as the stream handler, as if it
 * had just been inserted. Running it twice, or while the stream is live, starts nothing twice: the
 * names are the same, so Step Functions deduplicates.
 *
 * <p>Progress is saved after every page; a run started again with the same progress file goes on
 * from there. A segment in which an item's start failed stops moving its saved position forward,
 * so a later run covers that item again (and everything after it, harmlessly).
 */
public final class Backfill {

    private static final Logger LOG = LoggerFactory.getLogger(Backfill.class);

    private final DynamoDbClient dynamoDb;
    private final ExpiryScheduler scheduler;
    private final Clock clock;
    private final Sleeper sleeper;

    /**
     * @param dynamoDb the table's client
     * @param executions Step Functions for the {@code expire-item} state machine (e.g. {@code SfnExecutions})
     * @param clock the time the rules compare TTLs with, and the rate limiter's
     * @param sleeper how the rate limiter waits
     */
    public Backfill(DynamoDbClient dynamoDb, Executions executions, Clock clock, Sleeper sleeper) {
        this.dynamoDb = dynamoDb;
        this.scheduler = new ExpiryScheduler(executions);
        this.clock = clock;
        this.sleeper = sleeper;
    }

    /**
     * Runs the backfill to the end of the table.
     *
     * @return what this run did
     * @throws IllegalArgumentException when the progress file belongs to other options
     * @throws InterruptedException when interrupted while rate limited; progress so far is saved
     */
    public BackfillSummary run(BackfillOptions options, BackfillListener listener) throws InterruptedException {
        TableDescription table = dynamoDb.describeTable(r -> r.tableName(options.table())).table();
        List<String> keyNames = table.keySchema().stream().map(KeySchemaElement::attributeName).toList();
        BackfillProgress progress = BackfillProgress.open(options.progressFile(), options.table(), options.totalSegments());
        Run run = new Run(options, keyNames, progress, listener,
                new RateLimiter(options.itemsPerSecond(), clock, sleeper),
                new ExpiryRules(options.ttlAttribute(), false));
        listener.started(table.itemCount() == null ? 0 : table.itemCount());
        ExecutorService segments = Executors.newFixedThreadPool(options.totalSegments());
        try {
            List<CompletableFuture<Void>> scans = new ArrayList<>();
            for (int segment = 0; segment < options.totalSegments(); segment++) {
                int index = segment;
                scans.add(CompletableFuture.runAsync(() -> run.scanSegment(index), segments));
            }
            CompletableFuture.allOf(scans.toArray(CompletableFuture[]::new)).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof InterruptedRun interrupted) {
                throw interrupted.cause;
            }
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        } finally {
            segments.shutdownNow();
        }
        return run.summary();
    }

    /** One run's state, shared by its segment threads. */
    private final class Run {
        private final BackfillOptions options;
        private final List<String> keyNames;
        private final BackfillProgress progress;
        private final BackfillListener listener;
        private final RateLimiter limiter;
        private final ExpiryRules rules;
        private final String projection;
        private final Map<String, String> names = new LinkedHashMap<>();
        private final AtomicLong scanned = new AtomicLong();
        private final AtomicLong scheduled = new AtomicLong();
        private final AtomicLong alreadyPending = new AtomicLong();
        private final AtomicLong failed = new AtomicLong();
        private final Map<Reason, Long> ignored = new EnumMap<>(Reason.class);

        Run(BackfillOptions options, List<String> keyNames, BackfillProgress progress, BackfillListener listener,
                RateLimiter limiter, ExpiryRules rules) {
            this.options = options;
            this.keyNames = keyNames;
            this.progress = progress;
            this.listener = listener;
            this.limiter = limiter;
            this.rules = rules;
            List<String> placeholders = new ArrayList<>();
            for (int i = 0; i < keyNames.size(); i++) {
                names.put("#k" + i, keyNames.get(i));
                placeholders.add("#k" + i);
            }
            if (!keyNames.contains(options.ttlAttribute())) {
                names.put("#ttl", options.ttlAttribute());
                placeholders.add("#ttl");
            }
            this.projection = String.join(", ", placeholders);
        }

        void scanSegment(int segment) {
            if (progress.isDone(segment)) {
                return;
            }
            Map<String, AttributeValue> startKey = progress.resumeKey(segment);
            boolean checkpointHeld = false;
            do {
                ScanRequest.Builder request = ScanRequest.builder()
                        .tableName(options.table())
                        .segment(segment)
                        .totalSegments(options.totalSegments())
                        .projectionExpression(projection)
                        .expressionAttributeNames(names)
                        .exclusiveStartKey(startKey);
                if (options.pageSize() > 0) {
                    request.limit(options.pageSize());
                }
                ScanResponse page = dynamoDb.scan(request.build());
                boolean pageFailed = false;
                for (Map<String, AttributeValue> item : page.items()) {
                    pageFailed |= !process(item);
                }
                startKey = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
                checkpointHeld |= pageFailed;
                if (!checkpointHeld) {
                    progress.pageDone(segment, startKey);
                }
                listener.progressed(summary());
            } while (startKey != null);
        }

        /** Processes one scanned item; false if its start failed. */
        private boolean process(Map<String, AttributeValue> item) {
            try {
                limiter.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedRun(e);
            }
            scanned.incrementAndGet();
            Map<String, AttributeText> key = new LinkedHashMap<>();
            for (String name : keyNames) {
                key.put(name, toValue(item.get(name)));
            }
            AttributeValue ttl = item.get(options.ttlAttribute());
            StreamChange change = StreamChange.existingItem(options.table(), ItemKey.of(key), ttl == null ? null : toValue(ttl));
            Decision decision = rules.decide(change, clock.instant());
            try {
                ExpiryScheduler.Applied applied = scheduler.apply(decision);
                switch (applied.outcome()) {
                    case STARTED, RESTARTED -> scheduled.incrementAndGet();
                    case ALREADY_PENDING -> alreadyPending.incrementAndGet();
                    default -> count(decision.reason());
                }
                return true;
            } catch (RuntimeException e) {
                failed.incrementAndGet();
                LOG.warn("backfill could not start {} for item {} of {}: {}; run the backfill again to retry it",
                        decision.start().map(start -> start.name()).orElse("an execution"),
                        ExecutionNames.keyDigest(options.table(), change.key()), options.table(), e.toString());
                return false;
            }
        }

        private synchronized void count(Reason reason) {
            ignored.merge(reason, 1L, Long::sum);
        }

        synchronized BackfillSummary summary() {
            return new BackfillSummary(scanned.get(), scheduled.get(), alreadyPending.get(), ignored, failed.get());
        }
    }

    private static AttributeText toValue(AttributeValue value) {
        if (value == null) {
            return AttributeText.ofType(AttributeType.UNRECOGNISED);
        }
        if (value.s() != null) {
            return AttributeText.s(value.s());
        }
        if (value.n() != null) {
            return AttributeText.n(value.n());
        }
        if (value.b() != null) {
            return AttributeText.b(Base64.getEncoder().encodeToString(value.b().asByteArray()));
        }
        return AttributeText.ofType(switch (value.type()) {
            case BOOL -> AttributeType.BOOL;
            case NUL -> AttributeType.NULL;
            case SS -> AttributeType.SS;
            case NS -> AttributeType.NS;
            case BS -> AttributeType.BS;
            case L -> AttributeType.L;
            case M -> AttributeType.M;
            default -> AttributeType.UNRECOGNISED;
        });
    }

    /** Carries an interruption out of a segment thread. */
    private static final class InterruptedRun extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient InterruptedException cause;

        InterruptedRun(InterruptedException cause) {
            super(cause);
            this.cause = cause;
        }
    }
}
