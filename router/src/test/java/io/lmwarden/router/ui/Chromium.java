package io.lmwarden.router.ui;

import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The system's headless Chromium driven through the system's chromedriver; Selenium Manager is never
 * asked to download anything. Closing quits the browser and deletes its throw-away profile.
 */
final class Chromium implements AutoCloseable {

    static final Path BROWSER = Path.of("/usr/bin/chromium");
    static final Path DRIVER = Path.of("/usr/bin/chromedriver");

    private final ChromeDriver driver;
    private final Path profile;

    private Chromium(ChromeDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    /** Why the browser test cannot run here, or empty when it can. */
    static Optional<String> missing() {
        if (!Files.isExecutable(BROWSER) || !Files.isExecutable(DRIVER)) {
            return Optional.of("headless Chromium not found (" + BROWSER + ", " + DRIVER
                    + "); install it with `apt-get install chromium chromium-driver` to run the dashboard's browser test");
        }
        return Optional.empty();
    }

    static Chromium start(int width, int height) throws IOException {
        Path profile = Files.createTempDirectory("lmw-chromium-");
        System.setProperty("webdriver.chrome.driver", DRIVER.toString());
        ChromeOptions options = new ChromeOptions();
        options.setBinary(BROWSER.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1",
                "--window-size=" + width + "," + height, "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(DRIVER.toString()))
                .usingAnyFreePort()
                .build();
        try {
            return new Chromium(new ChromeDriver(service, options), profile);
        } catch (RuntimeException e) {
            deleteTree(profile);
            throw e;
        }
    }

    ChromeDriver driver() {
        return driver;
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            deleteTree(profile);
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("could not delete the browser profile " + root + ": " + e);
        }
    }
}
