package dev.punctual.local.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LifetimesTest {

    private final List<String> closed = new ArrayList<>();

    private AutoCloseable part(String name) {
        return () -> closed.add(name);
    }

    private AutoCloseable failing(String name) {
        return () -> {
            closed.add(name);
            throw new IllegalStateException(name + " would not close");
        };
    }

    @Test
    void close_whenEverythingCloses_closesTheLatestFirst() {
        Lifetimes lifetimes = new Lifetimes("the test runtime");
        lifetimes.own(part("database"));
        lifetimes.own(part("engine"));
        lifetimes.own(part("poller"));

        lifetimes.close();

        assertThat(closed).containsExactly("poller", "engine", "database");
    }

    @Test
    void close_whenOneCloseFails_closesTheRest_andReportsEveryFailureOnce() {
        Lifetimes lifetimes = new Lifetimes("the test runtime");
        lifetimes.own(part("database"));
        lifetimes.own(failing("engine"));
        lifetimes.own(failing("poller"));

        assertThatThrownBy(lifetimes::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Shutting down the test runtime failed")
                .hasRootCauseMessage("poller would not close")
                .satisfies(e -> assertThat(e.getSuppressed()).extracting(Throwable::getMessage)
                        .containsExactly("engine would not close"));
        assertThat(closed).containsExactly("poller", "engine", "database");
    }

    @Test
    void start_whenStartingFails_closesWhatHadStarted_andRethrows() {
        IllegalStateException portTaken = new IllegalStateException("port taken");

        assertThatThrownBy(() -> Lifetimes.start("a part", owned -> {
            owned.own(part("threads"));
            owned.own(failing("engine"));
            throw portTaken;
        })).isSameAs(portTaken);

        assertThat(closed).containsExactly("engine", "threads");
        assertThat(portTaken.getSuppressed()).extracting(Throwable::getMessage).containsExactly("engine would not close");
    }

    @Test
    void ownThreads_daemonThreadsByName_interruptedOnClose() throws Exception {
        Lifetimes lifetimes = new Lifetimes("the test runtime");
        ExecutorService threads = lifetimes.ownThreads(1, "test-worker");
        Thread worker = threads.submit(Thread::currentThread).get();

        lifetimes.close();

        assertThat(worker.getName()).isEqualTo("test-worker-1");
        assertThat(worker.isDaemon()).isTrue();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
}
