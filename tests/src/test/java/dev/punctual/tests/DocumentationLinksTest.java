package dev.punctual.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README is a front door and the detail lives in {@code docs/}: every relative link in them must
 * reach a file and, when it names a heading, that heading (anchors as GitHub derives them), so a moved
 * or renamed section cannot strand the links to it. Code blocks and inline code are not links.
 */
class DocumentationLinksTest {

    private static final Path ROOT = Path.of("..");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+)$");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
    private static final Pattern EXTERNAL = Pattern.compile("^[a-z]+:.*");

    @Test
    void relativeLinks_inReadmeAndDocs_reachAFileAndHeading() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            List<String> lines = prose(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher link = LINK.matcher(INLINE_CODE.matcher(lines.get(i)).replaceAll(""));
                while (link.find()) {
                    String problem = problem(page, link.group(1));
                    if (problem != null) {
                        broken.add(ROOT.relativize(page) + ":" + (i + 1) + ": " + link.group(1) + " (" + problem + ")");
                    }
                }
            }
        }
        assertThat(broken).as("broken relative links").isEmpty();
    }

    @Test
    void everyDocsPage_linksBackToTheReadme() throws IOException {
        for (Path page : pages()) {
            if (page.getParent().getFileName().toString().equals("docs")) {
                assertThat(Files.readString(page)).as(page.toString()).contains("](../README.md)");
            }
        }
    }

    private static final String CI_TEST_COMMAND_MARKER = "# The README's test command, verbatim.";

    @Test
    void readme_showsTheTestCommandThatCiRuns() throws IOException {
        // .ci/run names the README's test command with a comment on the line before it; what follows it (mutation
        // testing) is CI's own.
        List<String> ci = Files.readAllLines(ROOT.resolve(".ci/run")).stream().map(String::strip).toList();
        int marker = ci.indexOf(CI_TEST_COMMAND_MARKER);
        assertThat(marker).as(".ci/run marks the README's test command with `%s`", CI_TEST_COMMAND_MARKER).isNotNegative();
        String command = ci.get(marker + 1);
        assertThat(command).startsWith("mvn ");
        assertThat(ci.stream().filter(command::equals)).as("CI runs the test command once").hasSize(1);
        assertThat(Files.readAllLines(ROOT.resolve("README.md")).contains(command))
                .as("README.md shows CI's test command `%s` on a line of its own", command).isTrue();
    }

    @Test
    void readme_staysAFrontDoor_underTwoHundredFiftyLines() throws IOException {
        assertThat(Files.readAllLines(ROOT.resolve("README.md")))
                .as("README.md is the front door; detail goes to a docs/ page").hasSizeLessThan(250);
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The page's lines, with those inside fenced code blocks blanked (numbering kept for messages). */
    private static List<String> prose(Path page) throws IOException {
        List<String> lines = new ArrayList<>();
        boolean inFence = false;
        for (String line : Files.readAllLines(page)) {
            boolean fence = line.startsWith("```");
            inFence ^= fence;
            lines.add(inFence || fence ? "" : line);
        }
        return lines;
    }

    /** Why {@code target}, linked from {@code page}, leads nowhere; {@code null} when it resolves. */
    private static String problem(Path page, String target) throws IOException {
        if (EXTERNAL.matcher(target).matches()) {
            return null;
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(resolved)) {
            return "no such file";
        }
        if (hash >= 0 && !anchors(resolved).contains(target.substring(hash + 1))) {
            return "no such heading";
        }
        return null;
    }

    /** GitHub's heading anchors: lower case, punctuation other than '-' and '_' dropped, spaces as '-'. */
    private static Set<String> anchors(Path page) throws IOException {
        Set<String> anchors = new HashSet<>();
        if (!page.toString().endsWith(".md")) {
            return anchors;
        }
        for (String line : prose(page)) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String anchor = heading.group(1).strip().toLowerCase(Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
                String unique = anchor;
                for (int n = 1; !anchors.add(unique); n++) {
                    unique = anchor + "-" + n;
                }
            }
        }
        return anchors;
    }
}
