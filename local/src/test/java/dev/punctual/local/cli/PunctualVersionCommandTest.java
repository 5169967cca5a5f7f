package dev.punctual.local.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.statemachine.PunctualVersion;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class PunctualVersionCommandTest {

    @Test
    void version_printsTheOneBuiltVersion() {
        StringWriter out = new StringWriter();
        int exit = PunctualCommand.run(new PrintWriter(out, true), new PrintWriter(new StringWriter(), true), "--version");

        assertThat(exit).isZero();
        assertThat(out.toString().trim()).isEqualTo("punctual " + PunctualVersion.current());
        assertThat(PunctualVersion.current()).doesNotContain("${").isNotBlank();
    }
}
