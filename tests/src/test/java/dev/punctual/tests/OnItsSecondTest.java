package dev.punctual.tests;

import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.tests.support.SecondBySecond;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The one-second promise, in both modes, where it cannot flake: on the runtime's manual timer, which
 * moves to each whole second and stays there until that second's deletes are done, every item is deleted
 * inside its own TTL second (never before it, never in the next), whatever the machine's load. Items due
 * in the same second, in neighbouring seconds across a minute's end, written for a minute whose runner
 * has already begun, and pending across a restart of the runtime on its data directory.
 *
 * <p>The wall-clock tests ({@link ExpiryEndToEndTest}, {@link WindowedEndToEndTest}) show the lag real
 * time adds; these show that Punctual itself never picks the wrong second.
 */
class OnItsSecondTest {

    /** Seconds between the timer's start and the first minute the tests use: room to write and index. */
    private static final long LEAD = 25;

    @TempDir
    Path data;

    private ManualTimer timer;
    private LocalRuntime runtime;
    /** The first whole minute at least {@link #LEAD} seconds after the timer's start. */
    private long minute;

    private void start(ExpiryMode mode, boolean durable) {
        // The timer starts LEAD seconds before a whole minute (at most a minute ahead of the wall clock), so
        // every case lays its items out the same way against minute boundaries, whenever it runs.
        long now = Instant.now().getEpochSecond();
        minute = (now + LEAD + 59) / 60 * 60;
        timer = ManualTimer.startingAt(Instant.ofEpochSecond(minute - LEAD));
        runtime = LocalRuntime.start(options(mode, durable, timer));
    }

    private LocalRuntime.Options options(ExpiryMode mode, boolean durable, ManualTimer runtimeTimer) {
        LocalRuntime.Options options = LocalRuntime.Options.onFreePorts().withMode(mode).withTimer(runtimeTimer);
        return durable ? options.withDataDirectory(data) : options;
    }

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.close();
        }
    }

    @ParameterizedTest
    @EnumSource(ExpiryMode.class)
    void itemsDueInTheSameAndNeighbouringSeconds_acrossAMinutesEnd_areEachDeletedInTheirOwnSecond(ExpiryMode mode) {
        start(mode, false);
        SecondBySecond run = new SecondBySecond(timer, runtime);
        run.createTable("second");
        Map<String, Long> items = new LinkedHashMap<>();
        items.put("last-a", minute - 2);
        items.put("last-b", minute - 2);
        items.put("last-c", minute - 2);
        items.put("end", minute - 1);
        items.put("start-a", minute);
        items.put("start-b", minute);
        items.put("next-a", minute + 1);
        items.put("next-b", minute + 1);
        items.put("gap", minute + 4);
        items.put("gap-next", minute + 5);

        run.writeAndHandle(items, Instant.ofEpochSecond(minute - 15));
        run.stepThrough(Instant.ofEpochSecond(minute + 6));

        run.assertEachDeletedInItsOwnSecond();
    }

    @ParameterizedTest
    @EnumSource(ExpiryMode.class)
    void itemsWrittenForAMinuteAlreadyPlanned_andAfterItsRunnerBegan_areEachDeletedInTheirOwnSecond(ExpiryMode mode) {
        start(mode, false);
        SecondBySecond run = new SecondBySecond(timer, runtime);
        run.createTable("late");
        // The minute is planned for its first due second: its runner wakes 11 s before, at minute + 29.
        run.writeAndHandle(Map.of("planned", minute + 40), Instant.ofEpochSecond(minute - 5));
        run.stepThrough(Instant.ofEpochSecond(minute + 20));

        // Before the planned runner wakes, an item due before its first second: the minute's early part.
        run.writeAndHandle(Map.of("early", minute + 25), Instant.ofEpochSecond(minute + 22));
        run.stepThrough(Instant.ofEpochSecond(minute + 32));

        // The runner has begun: a second it skipped as empty (a one-second fallback), its next due second,
        // and a second after it.
        Map<String, Long> late = new LinkedHashMap<>();
        late.put("in-the-gap", minute + 38);
        late.put("with-planned", minute + 40);
        late.put("after", minute + 50);
        run.writeAndHandle(late, Instant.ofEpochSecond(minute + 35));
        run.stepThrough(Instant.ofEpochSecond(minute + 51));

        run.assertEachDeletedInItsOwnSecond();
    }

    @ParameterizedTest
    @EnumSource(ExpiryMode.class)
    void itemsPendingAcrossARestartOnTheDataDirectory_areEachDeletedInTheirOwnSecond(ExpiryMode mode) {
        start(mode, true);
        SecondBySecond run = new SecondBySecond(timer, runtime);
        run.createTable("restart");
        Map<String, Long> items = new LinkedHashMap<>();
        items.put("before-a", minute + 2);
        items.put("before-b", minute + 3);
        items.put("during-a", minute + 62);
        items.put("during-b", minute + 63);
        items.put("after-a", minute + 66);
        items.put("after-b", minute + 66);
        run.writeAndHandle(items, Instant.ofEpochSecond(minute - 15));

        run.stepThrough(Instant.ofEpochSecond(minute + 10));
        restart(mode, run);
        // Again halfway through the next minute: per-item executions wait in the journal, the minute's
        // runner has deleted two seconds and is run again from its mark.
        run.stepThrough(Instant.ofEpochSecond(minute + 64));
        restart(mode, run);
        run.stepThrough(Instant.ofEpochSecond(minute + 67));

        run.assertEachDeletedInItsOwnSecond();
    }

    /** Closes the runtime and starts another on the same data directory, at the same instant of a new timer. */
    private void restart(ExpiryMode mode, SecondBySecond run) {
        Instant at = timer.clock().instant();
        run.beforeClose();
        runtime.close();
        runtime = null;
        timer = ManualTimer.startingAt(at);
        runtime = LocalRuntime.start(options(mode, true, timer));
        run.restartedAs(runtime, timer);
    }
}
