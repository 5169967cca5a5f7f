package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.logging.log4j.core.config.plugins.processor.PluginCache;
import org.apache.logging.log4j.core.config.plugins.processor.PluginEntry;
import org.junit.jupiter.api.Test;

/**
 * The Lambda bundle is one shaded jar, and only one {@code Log4j2Plugins.dat} survives shading: the
 * module's own, which must therefore list the plugins of log4j-core, the JSON template layout and
 * Powertools together. This test holds that file equal to the merge of the dependencies' caches;
 * after a version change, regenerate it with
 * {@code mvn -pl functions -am test -Dtest=Log4jPluginCacheTest -Dpunctual.writePluginCache=true}.
 */
class Log4jPluginCacheTest {

    private static final String CACHE = "META-INF/org/apache/logging/log4j/core/config/plugins/Log4j2Plugins.dat";
    private static final Path SOURCE = Path.of("src/main/resources").resolve(CACHE);

    @Test
    void theModulesPluginCacheIsTheMergeOfItsDependencies() throws IOException {
        List<URL> dependencies = new ArrayList<>();
        URL own = null;
        for (URL url : Collections.list(getClass().getClassLoader().getResources(CACHE))) {
            if (url.getProtocol().equals("file") && url.getPath().contains("/target/classes/")) {
                own = url;
            } else {
                dependencies.add(url);
            }
        }
        PluginCache merged = new PluginCache();
        merged.loadCacheFiles(Collections.enumeration(dependencies));
        if (Boolean.getBoolean("punctual.writePluginCache")) {
            Files.createDirectories(SOURCE.getParent());
            try (OutputStream out = Files.newOutputStream(SOURCE)) {
                merged.writeCache(out);
            }
        }

        assertThat(dependencies).as("log4j-core, the JSON template layout and Powertools each ship a cache").hasSizeGreaterThanOrEqualTo(3);
        assertThat(own).as(CACHE + " in the module's resources").isNotNull();
        PluginCache ours = new PluginCache();
        ours.loadCacheFiles(Collections.enumeration(List.of(own)));
        assertThat(describe(ours)).as("regenerate with -Dpunctual.writePluginCache=true").isEqualTo(describe(merged));
        assertThat(describe(ours)).containsKeys("core/jsontemplatelayout", "core/console", "jsontemplateresolverfactory/powertoolsresolverfactory");
    }

    private static Map<String, String> describe(PluginCache cache) {
        Map<String, String> entries = new TreeMap<>();
        for (Map.Entry<String, Map<String, PluginEntry>> category : cache.getAllCategories().entrySet()) {
            for (Map.Entry<String, PluginEntry> entry : category.getValue().entrySet()) {
                entries.put(category.getKey() + "/" + entry.getKey(), entry.getValue().getClassName());
            }
        }
        return entries;
    }
}
