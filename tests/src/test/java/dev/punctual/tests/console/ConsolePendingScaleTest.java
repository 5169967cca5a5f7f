package dev.punctual.tests.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ExpiryRules;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.StreamChange;
import dev.punctual.local.console.ConsoleServer;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.peritem.ExecutionRequest;
import dev.punctual.peritem.ItemPlan;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * With 100,000 pending expirations, the first page of {@code /pending} costs the console what it costs with a
 * few: it pages on the server from an index sorted by expiry, which it builds from the engine's running
 * executions. What is asserted is what load cannot move: the page's content, and the CPU the console spent
 * answering its {@code /api/pending} request (the {@code Server-Timing} header, as the browser received it),
 * far below what reading 100,000 entries would cost. The wall time to a rendered page is printed: 517 ms
 * quiet, 1.1 s beside a second suite on two cores (load 40), where a wall-clock budget measured the machine.
 * The executions are real: each started on the runtime's engine with the name and input per-item mode gives
 * an item with that TTL ({@link ExpiryRules}, then {@link ItemPlan}, as {@code punctual backfill} schedules an
 * existing item). Writing the items to DynamoDB Local and reading them back off the stream first, as
 * {@code bench --schedule-only} does, would add a minute of full CPU and nothing the page reads.
 */
class ConsolePendingScaleTest {

    private static final int PENDING = 100_000;
    private static final String TABLE = "console-scale";
    private static final String TTL_ATTRIBUTE = "expiresAt";
    /**
     * The console's CPU for the first page's {@code /api/pending}: its 51 index entries, the count and the JSON
     * took 0.9 ms; a page that sorted the 100,000 entries took 34 ms (tried), one that only copied them 9 ms.
     * CPU time, unlike the wall time to a rendered page, does not grow with what else the machine runs.
     */
    private static final Duration FIRST_PAGE_CPU_BUDGET = Duration.ofMillis(10);

    @Test
    void firstPageOfPending_with100000Pending_isReadFromTheIndex_atAFewMillisecondsOfConsoleCpu() throws InterruptedException {
        try (Browser browser = Browser.start();
             ConsoleRuntime both = ConsoleRuntime.start(LocalRuntime.Options.onFreePorts())) {
            LocalRuntime runtime = both.runtime();
            ConsoleServer console = both.console();
            Duration starting = startPending(runtime);
            assertThat(runtime.stepFunctionsEngine().openExecutions()).isEqualTo(PENDING);

            WebDriver driver = browser.driver();
            // A first visit loads the page's scripts into the browser's cache, as a developer's open tab has.
            driver.get(console.uri() + "pending");
            firstPage(driver, Duration.ofSeconds(10));

            // The best of three visits: what the page costs is the same each time, and what the other test
            // JVMs sharing the cores add to one visit is not the page's.
            List<Long> visits = new ArrayList<>();
            FirstPage page = null;
            for (int visit = 0; visit < 3; visit++) {
                driver.get(console.uri() + "expired");
                long started = System.nanoTime();
                driver.get(console.uri() + "pending");
                page = firstPage(driver, Duration.ofSeconds(10));
                visits.add(Duration.ofNanos(System.nanoTime() - started).toMillis());
            }
            Duration rendered = Duration.ofMillis(java.util.Collections.min(visits));
            double cpuMillis = apiCpuMillis(driver);
            browser.screenshot("pending-100000");
            System.out.printf("console /pending with %,d pending (started in %d s): first page rendered in %d ms"
                    + " (best of three visits: %s ms); the console's CPU for its /api/pending: %.1f ms%n", PENDING,
                    starting.toSeconds(), rendered.toMillis(), visits, cpuMillis);

            assertThat(page.rows()).isEqualTo(50);
            assertThat(page.total()).isEqualTo(PENDING + " pending");
            assertThat(page.nextPageLinks()).isEqualTo(1);
            assertThat(cpuMillis).as("the console's CPU for the first page's /api/pending, in ms").isNotNegative()
                    .isLessThan((double) FIRST_PAGE_CPU_BUDGET.toMillis());
        }
    }

    /**
     * Starts {@link #PENDING} expire-item executions, due over an hour from half an hour on, each with
     * the name and input per-item mode gives the item; returns how long starting them took.
     */
    private static Duration startPending(LocalRuntime runtime) {
        ExpiryRules rules = new ExpiryRules(TTL_ATTRIBUTE);
        Instant now = Instant.now();
        long first = now.plus(Duration.ofMinutes(30)).getEpochSecond();
        long started = System.nanoTime();
        List<CompletableFuture<?>> inFlight = new ArrayList<>();
        for (int i = 0; i < PENDING; i++) {
            ItemKey key = ItemKey.of(Map.of("id", AttributeText.s(String.format("item-%06d", i))));
            AttributeText ttl = AttributeText.n(Long.toString(first + (long) i * 3_600 / PENDING));
            ExecutionRequest request = ItemPlan.of(rules.decide(StreamChange.existingItem(TABLE, key, ttl, Integer.toString(i)), now),
                    now, true).start().orElseThrow();
            inFlight.add(runtime.stepFunctionsEngine().startExecution(LocalDefaults.stateMachineArn(), request.name(),
                    request.input().toJson()));
            if (inFlight.size() == 10_000) {
                inFlight.forEach(CompletableFuture::join);
                inFlight.clear();
            }
        }
        inFlight.forEach(CompletableFuture::join);
        return Duration.ofNanos(System.nanoTime() - started);
    }

    /**
     * The console's CPU for this page's {@code /api/pending} request, from its {@code Server-Timing} header as
     * the browser's resource timing holds it (-1 when the page made no such request).
     */
    private static double apiCpuMillis(WebDriver driver) {
        Object cpu = ((org.openqa.selenium.JavascriptExecutor) driver).executeScript("""
                const entries = performance.getEntriesByType('resource').filter(e => e.name.includes('/api/pending'));
                if (entries.length === 0) return -1;
                const timing = entries[0].serverTiming.find(t => t.name === 'cpu');
                return timing ? timing.duration : -1;
                """);
        return ((Number) cpu).doubleValue();
    }

    /** What the test reads of the first page of {@code /pending}, read in one go. */
    private record FirstPage(int rows, String total, int nextPageLinks) {
    }

    /**
     * Waits for the first page's rows and reads them, the total and the next-page link together. The page
     * draws itself again every 2 s, replacing every element: an element found before a redraw and read
     * after it is stale, so a read that meets a redraw is thrown away and done again on the new page.
     */
    private static FirstPage firstPage(WebDriver driver, Duration timeout) {
        return new WebDriverWait(driver, timeout, Duration.ofMillis(10))
                .ignoring(StaleElementReferenceException.class)
                .until(d -> {
                    List<WebElement> rows = d.findElements(By.cssSelector("tr.pending-row"));
                    if (rows.isEmpty()) {
                        return null;
                    }
                    return new FirstPage(rows.size(), d.findElement(By.id("pending-total")).getText(),
                            d.findElements(By.id("next-page")).size());
                });
    }
}
