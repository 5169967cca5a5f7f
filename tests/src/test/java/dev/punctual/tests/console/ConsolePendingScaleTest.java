package dev.punctual.tests.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.console.ConsoleServer;
import dev.punctual.local.measure.ExpiryTrial;
import dev.punctual.local.measure.ScheduleReport;
import dev.punctual.local.measure.ScheduleTrial;
import dev.punctual.local.runtime.LocalRuntime;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * With 100,000 pending expirations, the first page of {@code /pending} renders in under a second:
 * the console pages on the server from an index sorted by expiry. The items are real: written to a
 * table with the stream mapping paused, then scheduled by the real handler into running executions,
 * the path {@code bench --schedule-only} measures.
 */
class ConsolePendingScaleTest {

    private static final int PENDING = 100_000;
    private static final Duration FIRST_PAGE_BUDGET = Duration.ofSeconds(1);

    @Test
    void firstPageOfPending_with100000Pending_rendersInUnderOneSecond() throws InterruptedException {
        try (Browser browser = Browser.start();
             ConsoleRuntime both = ConsoleRuntime.start(LocalRuntime.Options.onFreePorts())) {
            LocalRuntime runtime = both.runtime();
            ConsoleServer console = both.console();
            ExpiryTrial.Settings settings = new ExpiryTrial.Settings("console-scale", PENDING, Duration.ofHours(1),
                    Duration.ofMinutes(30), Duration.ofSeconds(30), 8);
            ScheduleReport scheduled = new ScheduleTrial(runtime).run(settings, ExpiryTrial.Progress.NONE);
            assertThat(runtime.stepFunctionsEngine().openExecutions()).isEqualTo(PENDING);

            WebDriver driver = browser.driver();
            // A first visit loads the page's scripts into the browser's cache, as a developer's open tab has.
            driver.get(console.uri() + "pending");
            firstRows(driver, Duration.ofSeconds(10));
            driver.get(console.uri() + "expired");

            long started = System.nanoTime();
            driver.get(console.uri() + "pending");
            List<WebElement> rows = firstRows(driver, Duration.ofSeconds(10));
            Duration rendered = Duration.ofNanos(System.nanoTime() - started);
            browser.screenshot("pending-100000");
            System.out.printf("console /pending with %,d pending (written in %d s, scheduled in %d s): first page rendered"
                    + " in %d ms%n", PENDING, scheduled.writing().toSeconds(), scheduled.scheduling().toSeconds(), rendered.toMillis());

            assertThat(rows).hasSize(50);
            assertThat(driver.findElement(By.id("pending-total")).getText()).isEqualTo(PENDING + " pending");
            assertThat(driver.findElements(By.id("next-page"))).hasSize(1);
            assertThat(rendered).isLessThan(FIRST_PAGE_BUDGET);
        }
    }

    private static List<WebElement> firstRows(WebDriver driver, Duration timeout) {
        return new WebDriverWait(driver, timeout, Duration.ofMillis(10)).until(d -> {
            List<WebElement> rows = d.findElements(By.cssSelector("tr.pending-row"));
            return rows.isEmpty() ? null : rows;
        });
    }
}
