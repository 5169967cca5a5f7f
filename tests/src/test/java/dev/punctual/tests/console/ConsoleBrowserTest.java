package dev.punctual.tests.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.console.ConsoleServer;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.runtime.SkippedTime;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.testing.Await;
import dev.punctual.tests.support.ExpiryTable;
import dev.punctual.tests.support.RuntimeProgress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The local console in headless Chromium, on a runtime of its own: items written with the SDK appear
 * on {@code /pending} counting down, move to {@code /expired} with their lag, and show on the overview's
 * chart; an execution's page lists its history and marks the state it waits in; keys made of HTML stay
 * text; a failed execution shows its error and cause. Each page's screenshot is saved under
 * {@code target/console-screenshots/}.
 */
class ConsoleBrowserTest {

    private static final Pattern SECONDS_LEFT = Pattern.compile("(\\d+\\.\\d)s");

    private static Browser browser;
    private static ConsoleRuntime started;
    private static LocalRuntime runtime;
    private static ConsoleServer console;
    private static ExpiryTable table;

    @BeforeAll
    static void start() {
        browser = Browser.start();
        started = ConsoleRuntime.start(LocalRuntime.Options.onFreePorts());
        runtime = started.runtime();
        console = started.console();
        table = ExpiryTable.create(runtime, "console");
        runtime.observations().deletions().track(table.name());
    }

    @AfterAll
    static void stop() {
        ConsoleRuntime.closeIfStarted(started);
        if (browser != null) {
            browser.close();
        }
    }

    @Test
    void item_appearsOnPendingCountingDown_thenOnExpiredWithItsLag_andItsEvent_andOnTheChart() {
        long ttl = Instant.now().getEpochSecond() + 8;
        long beforeWrite = System.currentTimeMillis();
        table.putWithTtl("soon", ttl);
        WebDriver driver = browser.driver();
        driver.get(url("pending"));
        // How soon an item shows is the stream's scheduling latency, which the benchmarks measure; here, that
        // it shows, counting down to its TTL on the runtime's clock.
        Row row = waitFor(Duration.ofSeconds(10), () -> rowWithKey("tr.pending-row", "soon"));
        String countdown = row.cell("countdown");
        Matcher left = SECONDS_LEFT.matcher(countdown);
        assertThat(left.matches()).as("countdown '%s'", countdown).isTrue();
        // The page redraws the countdown every 100 ms (later on a busy machine), from its own clock: what it
        // shows is no less than the time left when it was read (less a tenth for the rounding), and no more
        // than the time left when the item was written.
        long shownMillis = Math.round(Double.parseDouble(left.group(1)) * 1000);
        assertThat(shownMillis).as("countdown %s, read at the page's %d", countdown, row.pageNow())
                .isGreaterThanOrEqualTo(ttl * 1000 - row.pageNow() - 100)
                .isLessThanOrEqualTo(ttl * 1000 - beforeWrite);
        assertThat(row.text()).contains(table.name(), String.valueOf(ttl));
        browser.screenshot("pending");

        driver.get(url("expired"));
        Row expired = waitFor(Duration.ofSeconds(15), () -> rowWithKey("tr.expired-row", "soon"));
        assertThat(expired.cell("outcome")).isEqualTo("Expired");
        // The lag shown is the runtime's own: its delete's instant less the TTL, never negative.
        long deletedAt = Await.valueWhileProgressing("the delete in the runtime's ledger", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> runtime.observations().deletions()
                .deletedAt(table.name(), Map.of(ExpiryTable.KEY, AttributeValue.fromS("soon")))).toEpochMilli();
        assertThat(deletedAt).as("never early").isGreaterThanOrEqualTo(ttl * 1000);
        assertThat(expired.cell("lag")).isEqualTo((deletedAt - ttl * 1000) + " ms");
        browser.screenshot("expired");

        driver.get(url("events"));
        Row event = waitFor(Duration.ofSeconds(10), () -> rowWithKey("tr.event-row", "soon"));
        assertThat(event.cell("expired-by")).isEqualTo("punctual");
        assertThat(event.cell("lag")).matches("\\d+ ms");
        assertThat(event.cell("event-id")).matches("[a-z2-7]{26}");
        assertThat(event.text()).contains(table.name(), String.valueOf(ttl));
        browser.screenshot("events");

        driver.get(url(""));
        // The chart is redrawn every few seconds: its element and its point count are read in one script.
        waitFor(Duration.ofSeconds(5), () -> ((org.openqa.selenium.JavascriptExecutor) driver).executeScript("""
                const chart = document.getElementById('chart');
                return chart && chart.querySelector('canvas') && Number(chart.dataset.points) >= 1 ? true : null;
                """));
        assertThat(texts("[data-counter='early (must stay 0)'] .value")).containsExactly("0");
        browser.screenshot("overview");
    }

    @Test
    void executionPage_listsHistoryInOrder_andMarksTheWaitState() {
        table.putWithTtl("waiting", Instant.now().getEpochSecond() + 300);
        WebDriver driver = browser.driver();
        driver.get(url("pending"));
        Row row = waitFor(Duration.ofSeconds(5), () -> rowWithKey("tr.pending-row", "waiting"));
        driver.get(row.link());
        WebElement wait = waitFor(Duration.ofSeconds(5), () -> {
            List<WebElement> states = driver.findElements(By.cssSelector("g.state[data-state='WaitUntilExpiry']"));
            return !states.isEmpty() && "current".equals(states.get(0).getAttribute("data-mark")) ? states.get(0) : null;
        });
        assertThat(wait).isNotNull();
        // The page redraws every second while the execution runs: each read is one script inside the page.
        assertThat(texts("g.state[data-state='WaitUntilExpiry']")).singleElement().asString().contains("WaitUntilExpiry");
        assertThat(texts("tr.history-row td.event-type"))
                .containsExactly("ExecutionStarted", "ChoiceStateEntered", "ChoiceStateExited", "WaitStateEntered");
        assertThat(texts("#execution-status")).containsExactly("RUNNING");
        assertThat(texts("#execution-input")).singleElement().asString().contains("\"waiting\"");
        browser.screenshot("execution-waiting");
    }

    @Test
    void keyMadeOfHtml_rendersAsText() {
        String key = "<img src=x onerror=alert(1)>";
        table.putWithTtl(key, Instant.now().getEpochSecond() + 300);
        WebDriver driver = browser.driver();
        driver.get(url("pending"));
        Row row = waitFor(Duration.ofSeconds(5), () -> rowWithKey("tr.pending-row", key));
        assertThat(row.cell("key")).isEqualTo("{\"id\":{\"S\":\"" + key + "\"}}");
        assertThat(driver.findElements(By.tagName("img"))).isEmpty();
        boolean alerted;
        try {
            driver.switchTo().alert();
            alerted = true;
        } catch (NoAlertPresentException expected) {
            alerted = false;
        }
        assertThat(alerted).as("an alert ran").isFalse();
        browser.screenshot("pending-html-key");
    }

    /**
     * On a runtime of its own, on skipped time: expire-item retries any failure but a failed condition (AWS
     * may name a throttle as it names this one), a first try and 8 retries with full-jitter backoff of up to
     * 30 s, minutes of the runtime's time that are skipped, not waited out.
     */
    @Test
    void failedExecution_showsItsErrorAndCause() {
        ManualTimer timer = ManualTimer.startingAt(Instant.now());
        try (ConsoleRuntime own = ConsoleRuntime.start(LocalRuntime.Options.onFreePorts().withTimer(timer))) {
            ExpiryTable denied = ExpiryTable.create(own.runtime(), "console-denied");
            own.runtime().faults().dynamoDb().failNext(9, "AccessDeniedException");
            long ttl = timer.clock().instant().getEpochSecond() + 2;
            denied.putWithTtl("denied", ttl);
            SkippedTime.of(own.runtime()).advanceTo(Instant.ofEpochSecond(ttl).plus(Duration.ofMinutes(5)));
            assertThat(own.runtime().faults().dynamoDb().injected()).as("every try failed").isEqualTo(9);

            WebDriver driver = browser.driver();
            driver.get(own.console().uri() + "expired");
            Row row = waitFor(Duration.ofSeconds(10), () -> rowWithKey("tr.expired-row", "denied"));
            assertThat(row.cell("outcome")).isEqualTo("Failed");
            // the SDK's DynamoDB model has no AccessDeniedException class: AWS names it after the base exception
            assertThat(row.text()).contains("DynamoDB.AmazonDynamoDBException", "not authorized");
            driver.get(row.link());
            WebElement error = waitFor(Duration.ofSeconds(5), () -> driver.findElements(By.id("execution-error")).stream()
                    .findFirst().orElse(null));
            assertThat(error.getText()).contains("Error: DynamoDB.AmazonDynamoDBException", "Cause:", "not authorized");
            assertThat(driver.findElement(By.id("execution-status")).getText()).isEqualTo("FAILED");
            assertThat(driver.findElement(By.cssSelector("g.state[data-state='DeleteIfUnchanged']")).getAttribute("data-mark"))
                    .isEqualTo("failed");
            browser.screenshot("execution-failed");
        }
    }

    @Test
    void unknownPathsAndExecutions_getANotFoundPage_andTheConsoleKeepsServing() {
        WebDriver driver = browser.driver();
        driver.get(url("no-such-page"));
        assertThat(waitFor(Duration.ofSeconds(5), () -> text(By.cssSelector("main p")))).startsWith("There is no page");
        driver.get(url("executions/arn:aws:states:us-east-1:123456789012:execution:punctual-expire-item:nope"));
        assertThat(waitFor(Duration.ofSeconds(5), () -> text(By.cssSelector("main p")))).startsWith("There is no page");
        browser.screenshot("not-found");
        driver.get(url("executions"));
        waitFor(Duration.ofSeconds(5), () -> driver.findElements(By.id("status-filter")).stream().findFirst().orElse(null));
        browser.screenshot("executions");
        driver.get(url("dead-letters"));
        waitFor(Duration.ofSeconds(5), () -> driver.findElements(By.xpath("//p[text()='No dead letters.']")).stream()
                .findFirst().orElse(null));
        browser.screenshot("dead-letters");
    }

    /** The text of the first element {@code by} finds, or {@code null} while there is none. */
    private static String text(By by) {
        return browser.driver().findElements(by).stream().findFirst().map(WebElement::getText).orElse(null);
    }

    private static String url(String path) {
        return console.uri() + path;
    }

    /** The text of every element {@code selector} matches, read at once by one script inside the page. */
    @SuppressWarnings("unchecked")
    private static List<String> texts(String selector) {
        return (List<String>) ((org.openqa.selenium.JavascriptExecutor) browser.driver()).executeScript(
                "return Array.from(document.querySelectorAll(arguments[0]), e => e.textContent.trim());", selector);
    }

    /**
     * The row whose key cell names {@code key}: each cell's text by its class, the whole row's text and
     * its first link, read in one script inside the page. The pages redraw every few seconds; reading a
     * row element by element takes a WebDriver round trip per cell, and on a busy machine a redraw comes
     * between them often enough that the rows were stale on every try. The page's own clock ({@code now()},
     * the runtime's time) comes with it, for what depends on when it was read.
     */
    @SuppressWarnings("unchecked")
    private static Row rowWithKey(String rows, String key) {
        Object found = ((org.openqa.selenium.JavascriptExecutor) browser.driver()).executeScript("""
                for (const row of document.querySelectorAll(arguments[0])) {
                  const keyCell = row.querySelector('td.key');
                  if (!keyCell || !keyCell.innerText.includes('"' + arguments[1] + '"')) continue;
                  const cells = {};
                  for (const cell of row.querySelectorAll('td')) {
                    for (const name of cell.classList) cells[name] = cell.innerText;
                  }
                  const link = row.querySelector('a');
                  return {cells: cells, text: row.innerText, link: link ? link.href : null, now: now()};
                }
                return null;
                """, rows, key);
        if (found == null) {
            return null;
        }
        java.util.Map<String, Object> row = (java.util.Map<String, Object>) found;
        java.util.Map<String, String> cells = new java.util.HashMap<>();
        ((java.util.Map<String, Object>) row.get("cells")).forEach((name, text) -> cells.put(name, String.valueOf(text)));
        return new Row(cells, (String) row.get("text"), (String) row.get("link"), ((Number) row.get("now")).longValue());
    }

    /** A row as the page showed it, and the page's clock (the runtime's, in epoch milliseconds) when it was read. */
    private record Row(java.util.Map<String, String> cells, String text, String link, long pageNow) {

        String cell(String name) {
            return cells.get(name);
        }
    }

    private static <T> T waitFor(Duration timeout, java.util.function.Supplier<T> probe) {
        return new WebDriverWait(browser.driver(), timeout, Duration.ofMillis(50))
                .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(driver -> probe.get());
    }
}
