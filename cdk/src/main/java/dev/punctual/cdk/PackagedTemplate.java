package dev.punctual.cdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Stack;

/**
 * Writes the packaged template ({@link PunctualTemplateStack#TEMPLATE_FILE}) and the Lambda bundle it names
 * into one directory, laid out for {@code aws cloudformation package}. The build zips that directory into
 * {@code punctual-cloudformation-<version>.zip}.
 */
public final class PackagedTemplate {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private PackagedTemplate() {
    }

    /** {@code args[0]}: the directory to write into (created if missing). */
    public static void main(String[] args) {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: PackagedTemplate <output directory>");
        }
        Path written = write(Path.of(args[0]));
        System.out.println("Wrote " + written);
    }

    /** Renders the template for the bundle punctual-cdk carries and copies that bundle beside it. */
    static Path write(Path directory) {
        Path jar = FunctionBundle.locate();
        PunctualTemplateStack stack = PunctualTemplateStack.create(jar);
        try {
            Files.createDirectories(directory);
            removeOlderBundles(directory, stack.codePath());
            Path template = directory.resolve(PunctualTemplateStack.TEMPLATE_FILE);
            JSON.writeValue(template.toFile(), render(stack));
            Files.copy(jar, directory.resolve(stack.codePath()), StandardCopyOption.REPLACE_EXISTING);
            return template;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the packaged template into " + directory, e);
        }
    }

    /**
     * Deletes the function bundles an earlier build left in {@code directory}: each bundle's name carries
     * its content's hash, so a rebuilt bundle lands beside the old one, and the zip made of the directory
     * would carry both.
     */
    private static void removeOlderBundles(Path directory, String current) throws IOException {
        try (var files = Files.newDirectoryStream(directory, "*.jar")) {
            for (Path file : files) {
                if (!file.getFileName().toString().equals(current)) {
                    Files.delete(file);
                }
            }
        }
    }

    /** The template as CloudFormation reads it: the stack's app synthesized once. */
    static JsonNode render(Stack stack) {
        App app = (App) stack.getNode().getRoot();
        return JSON.valueToTree(app.synth().getStackByName(stack.getStackName()).getTemplate());
    }
}
