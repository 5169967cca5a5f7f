package dev.punctual.tests.console;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Chromium for the console's browser tests: Debian's {@code chromium} driven through its own
 * {@code chromedriver}, both given by path, so Selenium Manager downloads nothing. Without them the
 * tests are skipped with a message saying what to install ({@code .ci/run} installs them).
 */
final class Browser implements AutoCloseable {

    private static final Path CHROMIUM = Path.of(System.getProperty("punctual.chromium", "/usr/bin/chromium"));
    private static final Path CHROMEDRIVER = Path.of(System.getProperty("punctual.chromedriver", "/usr/bin/chromedriver"));
    /** Screenshots are test artifacts, kept with the module's other build output. */
    static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

    private final ChromeDriver driver;
    private final Path profile;

    private Browser(ChromeDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    /** Starts headless Chromium, or skips the calling test when Chromium or chromedriver is not installed. */
    static Browser start() {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "Browser tests skipped: " + CHROMIUM + " and " + CHROMEDRIVER + " are needed"
                        + " (Debian: apt-get install chromium chromium-driver; .ci/run installs them)");
        try {
            Path profile = Files.createTempDirectory("punctual-chromium-");
            ChromeOptions options = new ChromeOptions();
            options.setBinary(CHROMIUM.toFile());
            options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--window-size=1360,1000", "--user-data-dir=" + profile);
            ChromeDriverService service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
            ChromeDriver driver = new ChromeDriver(service, options);
            driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
            return new Browser(driver, profile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    ChromeDriver driver() {
        return driver;
    }

    /** Saves what the browser shows as {@code target/console-screenshots/<name>.png}. */
    Path screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Path file = SCREENSHOTS.resolve(name + ".png");
            Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        driver.quit();
        try (var files = Files.walk(profile)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // A leftover temporary profile is harmless.
        }
    }
}
