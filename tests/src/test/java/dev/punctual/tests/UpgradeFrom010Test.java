package dev.punctual.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.runtime.SkippedTime;
import dev.punctual.local.stream.DeadLetter;
import dev.punctual.local.stream.MappingSettings;
import dev.punctual.local.stream.RedriveResult;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.BackfillProgressTable;
import dev.punctual.statemachine.ExpiryEvents;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.testing.Await;
import dev.punctual.tests.support.ExpiryTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The upgrade trial: today's runtime started on a {@code --data-dir} the 0.1.0 release left with work
 * pending ({@code contracts/0.1.0/<mode>/data-dir}, made by {@code tools/contracts/make-fixtures.sh} from
 * the tag): per item; windowed, a minute whose runner was stopped halfway, the next minute and an hour
 * bucket; a backfill stopped after its first pages; windowed, a dead letter. Time goes on from the instant
 * 0.1.0 stopped (a manual timer), through every TTL, stopping at each instant the runtime owes work at.
 *
 * <p>Every item still pending is deleted inside its own TTL second (none early, none late), once (one
 * {@code ItemExpired} event, from Punctual), none is lost (the table is empty), those 0.1.0 deleted are not
 * touched again, the dead letter redriven by today's handler is deleted at its second too, and the backfill
 * 0.1.0 began finishes: every item of its table deleted at its second, its run closed. A failure names
 * the contract (the data directory's, the journal's executions and their inputs, the index's items) that
 * today's code no longer honours: docs/upgrading.md says what to do.
 */
class UpgradeFrom010Test {

    private static final String FIXTURES = "contracts/0.1.0/";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Beside each fixture's {@code data-dir}: its files and their SHA-256 digests, as the fixture maker listed them. */
    private static final String DATA_DIR_LISTING = "data-dir.sha256";
    /** The longest the fixture's backfill (one start a second) sleeps between two starts. */
    private static final Duration PACING = Duration.ofSeconds(1);
    /** Wall time the resumed backfill may take to finish: a hang guard, not a tolerance. */
    private static final Duration PACED_WAIT = Duration.ofSeconds(120);

    @TempDir
    Path data;

    private LocalRuntime runtime;

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = ExpiryMode.class, names = "WINDOWED")
    void todaysRuntime_onA010DataDirectory_deletesEveryPendingItemAtItsSecond_onceNoneLost(ExpiryMode mode) throws Exception {
        trial(mode, false);
    }

    /**
     * Per item, with the fixture's backfill stopped mid-page (its function sleeping between paced starts). The
     * pending items once seemed lost here: the trial had copied, beside the fixture, a snapshot an earlier
     * generation of it left in the build directory, and replayed that one; it copies the listed files only.
     */
    @Test
    void todaysRuntime_onA010PerItemDataDirectory_deletesEveryPendingItemAtItsSecond() throws Exception {
        trial(ExpiryMode.PER_ITEM, false);
    }

    /**
     * The per-item fixture's backfill was stopped mid-page (its function sleeping between paced starts): today's
     * runtime resumes its execution, runs that page again from the segment's saved position, and finishes the
     * run, every item of its table deleted at its second.
     */
    @Test
    void todaysRuntime_onA010DataDirectory_finishesTheBackfill010StoppedMidPage() throws Exception {
        trial(ExpiryMode.PER_ITEM, true);
    }

    private void trial(ExpiryMode mode, boolean requireBackfill) throws Exception {
        Path fixture = fixture(mode.label());
        JsonNode manifest = JSON.readTree(fixture.resolve("fixture.json").toFile());
        copyDataDirectory(fixture, data);
        Instant stoppedAt = Instant.parse(manifest.path("stoppedAt").asText());
        String table = manifest.path("table").asText();
        String backfillTable = manifest.path("backfillTable").asText();
        Map<String, Long> items = longs(manifest.path("items"));
        Map<String, Long> backfilled = longs(manifest.path("backfillItems"));
        Set<String> expiredBefore = new TreeSet<>();
        manifest.path("expiredBefore").forEach(id -> expiredBefore.add(id.asText()));

        ManualTimer timer = ManualTimer.startingAt(stoppedAt);
        runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(mode).withDataDirectory(data)
                .withTimer(timer).withMapping(MappingSettings.builder().retryDelay(Duration.ofMillis(100)).build()));
        SkippedTime time = SkippedTime.of(runtime);
        ExpiryTable.existing(runtime, table);
        runtime.observations().deletions().track(table);
        runtime.observations().deletions().track(backfillTable);

        List<DeadLetter> letters = runtime.streamPoller().deadLetters().list();
        assertThat(letters).as("contract DATA_DIR: the dead letters 0.1.0 filed").hasSize(manifest.path("deadLetters").asInt(0));
        for (DeadLetter letter : letters) {
            RedriveResult redriven = runtime.streamPoller().deadLetters().redrive(letter.id());
            assertThat(redriven.succeeded()).as("contract DATA_DIR: dead letter %s redriven by today's handler: %s",
                    letter.id(), redriven.error()).isTrue();
        }

        // The backfill 0.1.0 began is paced (one start a second), and 0.1.0 stopped it mid-page: today's runtime runs
        // that page again, and between two starts its function sleeps on the runtime's timer in the function's own
        // pool while the engine's Task waits for it, which the runtime cannot tell from work under way, so it never
        // settles until the run is done. Until then time moves only to work owed within PACING (the function's
        // next start: no TTL is that close while the run goes, and none is passed, as time stays wherever an item
        // due by then is not deleted yet), never past an instant while the function is still working towards its
        // sleep; early deletes are checked at the end.
        Map<String, Long> due = new LinkedHashMap<>(items);
        expiredBefore.forEach(due::remove);
        boolean backfillPending = !backfillFinished(backfillTable);
        if (backfillPending && !requireBackfill) {
            backfilled.clear();
        }
        Map<String, Map<String, Long>> byTable = Map.of(table, due, backfillTable, backfilled);
        if (backfillPending) {
            Await.until(() -> "the backfill 0.1.0 began, finished; now " + timer.clock().instant() + ", next work "
                    + timer.nextWorkWakeUp() + ", overdue " + overdue(byTable, timer.clock().instant()), PACED_WAIT, () -> {
                Instant now = timer.clock().instant();
                Instant next = timer.nextWorkWakeUp();
                if (overdue(byTable, now).isEmpty() && next != null && !next.isAfter(now.plus(PACING))) {
                    timer.skipToNextWork(next);
                }
                return overdue(byTable, timer.clock().instant()).isEmpty() && backfillFinished(backfillTable);
            });
        }
        // Then from one instant work is owed at to the next, through every TTL. Events are collected at each TTL:
        // the runtime keeps an hour of them.
        Map<Long, JsonNode> collected = new HashMap<>();
        List<Long> seconds = Stream.concat(items.values().stream(), backfilled.values().stream()).distinct().sorted().toList();
        for (long second : seconds) {
            if (second + 2 > time.now().getEpochSecond()) {
                time.advanceTo(Instant.ofEpochSecond(second + 2));
            }
            runtime.observations().events().all().forEach(stored -> collected.put(stored.position(), stored.event()));
        }

        Map<String, Long> pending = new LinkedHashMap<>(items);
        expiredBefore.forEach(pending::remove);
        Figures figures = new Figures(mode);
        figures.check(table, pending);
        figures.check(backfillTable, backfilled);
        for (String id : expiredBefore) {
            assertThat(deletedAt(table, id)).as("%s, deleted by 0.1.0, deleted again", id).isEmpty();
        }
        assertThat(left(table, items.keySet())).as("contract DATA_DIR: items lost (never deleted)").isEmpty();
        assertThat(left(backfillTable, backfilled.keySet())).as("contract PROGRESS_ITEM: backfilled items lost").isEmpty();
        Map<String, Integer> events = expiryEvents(collected.values(), table);
        figures.events = events.values().stream().mapToInt(Integer::intValue).sum();
        assertThat(events.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList())
                .as("contract ITEM_EXPIRED: items with more than one ItemExpired event").isEmpty();
        assertThat(events.keySet()).as("contract ITEM_EXPIRED: an ItemExpired event for each item deleted after the upgrade")
                .containsAll(pending.keySet());
        if (requireBackfill || !backfillPending) {
            assertThat(backfillFinished(backfillTable)).as("contract PROGRESS_ITEM: the backfill run 0.1.0 began, finished by today's code")
                    .isTrue();
        }
        figures.backfill = backfillPending ? (backfillFinished(backfillTable) ? "resumed and finished" : "left unfinished")
                : "finished by 0.1.0, its items pending";
        figures.deadLetters = letters.size();
        figures.expiredBefore = expiredBefore.size();
        System.out.println(figures);
        assertThat(figures.early).as("items deleted before their second").isEmpty();
        assertThat(figures.late).as("items deleted after their second").isEmpty();
        assertThat(figures.missing).as("items never deleted by Punctual").isEmpty();
    }

    /** What the trial counts, printed as one line per mode (docs/upgrading.md quotes it). */
    private final class Figures {
        final ExpiryMode mode;
        int onTime;
        long maxLagMillis;
        int events;
        int deadLetters;
        int expiredBefore;
        String backfill;
        final List<String> early = new ArrayList<>();
        final List<String> late = new ArrayList<>();
        final List<String> missing = new ArrayList<>();

        Figures(ExpiryMode mode) {
            this.mode = mode;
        }

        void check(String table, Map<String, Long> ttls) {
            ttls.forEach((id, ttl) -> {
                Optional<Instant> at = deletedAt(table, id);
                Instant second = Instant.ofEpochSecond(ttl);
                if (at.isEmpty()) {
                    missing.add(table + "/" + id);
                } else if (at.get().isBefore(second)) {
                    early.add(table + "/" + id + " at " + at.get() + ", TTL " + second);
                } else if (!at.get().isBefore(second.plusSeconds(1))) {
                    late.add(table + "/" + id + " at " + at.get() + ", TTL " + second);
                } else {
                    onTime++;
                    maxLagMillis = Math.max(maxLagMillis, Duration.between(second, at.get()).toMillis());
                }
            });
        }

        @Override
        public String toString() {
            return "upgrade trial 0.1.0 -> today, " + mode.label() + ": deleted by 0.1.0 before the upgrade " + expiredBefore
                    + "; pending at the upgrade, deleted inside their second " + onTime + " (max " + maxLagMillis
                    + " ms into it); early " + early.size() + "; late " + late.size() + "; lost " + missing.size()
                    + "; ItemExpired events " + events + "; dead letters redriven " + deadLetters + "; backfill " + backfill;
        }
    }

    private Optional<Instant> deletedAt(String table, String id) {
        return runtime.observations().deletions().deletedAt(table, Map.of(ExpiryTable.KEY, AttributeValue.fromS(id)));
    }

    private List<String> left(String table, Set<String> ids) {
        List<String> left = new ArrayList<>();
        for (String id : ids) {
            if (runtime.dynamoDb().getItem(r -> r.tableName(table).consistentRead(true)
                    .key(Map.of(ExpiryTable.KEY, AttributeValue.fromS(id)))).hasItem()) {
                left.add(id);
            }
        }
        return left;
    }

    /** Items due by {@code now} that no delete has reached yet. */
    private List<String> overdue(Map<String, Map<String, Long>> byTable, Instant now) {
        List<String> overdue = new ArrayList<>();
        byTable.forEach((table, ttls) -> ttls.forEach((id, ttl) -> {
            if (ttl <= now.getEpochSecond() && deletedAt(table, id).isEmpty()) {
                overdue.add(table + "/" + id);
            }
        }));
        return overdue;
    }

    private boolean backfillFinished(String backfillTable) {
        Map<String, AttributeValue> run = runtime.dynamoDb().getItem(r -> r.tableName(BackfillProgressTable.LOCAL_TABLE_NAME)
                .consistentRead(true).key(Map.of(BackfillProgressTable.PARTITION_KEY, AttributeValue.fromS(backfillTable),
                        BackfillProgressTable.SORT_KEY, AttributeValue.fromS(BackfillProgressTable.RUN_PART)))).item();
        return run.containsKey(BackfillProgressTable.FINISHED_AT);
    }

    /** ItemExpired events from Punctual's deletes of {@code table}'s items, by item id. */
    private static Map<String, Integer> expiryEvents(java.util.Collection<JsonNode> stored, String table) {
        Map<String, Integer> byId = new HashMap<>();
        stored.forEach(event -> {
            JsonNode detail = event.path("detail");
            if (table.equals(detail.path(ExpiryEvents.TABLE).asText())
                    && ExpiryEvents.BY_PUNCTUAL.equals(detail.path(ExpiryEvents.EXPIRED_BY).asText())) {
                byId.merge(detail.path(ExpiryEvents.KEY).path(ExpiryTable.KEY).path("S").asText(), 1, Integer::sum);
            }
        });
        return byId;
    }

    private static Map<String, Long> longs(JsonNode object) {
        Map<String, Long> values = new LinkedHashMap<>();
        object.fields().forEachRemaining(field -> values.put(field.getKey(), field.getValue().asLong()));
        return values;
    }

    static Path fixture(String name) {
        try {
            var url = UpgradeFrom010Test.class.getClassLoader().getResource(FIXTURES + name + "/fixture.json");
            assertThat(url).as("the 0.1.0 fixture " + FIXTURES + name).isNotNull();
            return Paths.get(url.toURI()).getParent();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Copies the fixture's data directory to {@code to}: exactly the files its maker listed in
     * {@code data-dir.sha256}, each checked against its digest. Files beside them that the listing does not
     * name are left out: a build directory keeps the files of an earlier generation of the fixture (its
     * resources are copied over, never pruned), and a journal segment or snapshot of another run, numbered
     * higher, would be the one replayed.
     */
    private static void copyDataDirectory(Path fixture, Path to) throws Exception {
        Path from = fixture.resolve("data-dir");
        Set<String> listed = new TreeSet<>();
        for (String line : Files.readAllLines(fixture.resolve(DATA_DIR_LISTING))) {
            if (line.isBlank()) {
                continue;
            }
            String digest = line.substring(0, line.indexOf(' '));
            String name = line.substring(line.indexOf(' ') + 2);
            Path source = from.resolve(name);
            assertThat(source).as("contract fixture %s: %s, listed in %s", fixture.getFileName(), name, DATA_DIR_LISTING).isRegularFile();
            assertThat(sha256(source)).as("contract fixture %s: %s is not the file its maker listed in %s (run mvn clean)",
                    fixture.getFileName(), name, DATA_DIR_LISTING).isEqualTo(digest);
            Path target = to.resolve(name);
            Files.createDirectories(target.getParent());
            Files.copy(source, target);
            listed.add(name);
        }
        assertThat(listed).as("contract fixture %s: %s lists no file", fixture.getFileName(), DATA_DIR_LISTING).isNotEmpty();
        try (Stream<Path> paths = Files.walk(from)) {
            List<String> unlisted = paths.filter(Files::isRegularFile).map(p -> from.relativize(p).toString().replace('\\', '/'))
                    .filter(name -> !listed.contains(name)).sorted().toList();
            if (!unlisted.isEmpty()) {
                System.out.println("contract fixture " + fixture.getFileName() + ": not copied, not in " + DATA_DIR_LISTING
                        + " (left by an earlier generation of the fixture): " + unlisted);
            }
        }
    }

    private static String sha256(Path file) throws IOException, NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }
}
