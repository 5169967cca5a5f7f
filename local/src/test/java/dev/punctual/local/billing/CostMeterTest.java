package dev.punctual.local.billing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The cost report's prices, each service against its pricing page's figure written out here (us-east-1),
 * so a wrong constant or a wrong sum fails.
 */
class CostMeterTest {

    @Test
    void punctualUsd_isEachServiceAtItsListPrice() {
        CostMeter meter = new CostMeter();
        meter.invocation(1024, Duration.ofMillis(250));
        meter.invocation(512, Duration.ofMillis(1_000));
        meter.punctualUnits(4, 6);
        meter.itemDelete(1);

        CostMeter.Snapshot snapshot = meter.snapshot(new CostMeter.EngineCounts(7, 3, 2, 2, 1.5, 1024L * 1024 * 1024));

        assertThat(snapshot.lambdaGbSeconds()).isCloseTo(0.25 + 0.5, within(1e-12));
        assertThat(snapshot.stepFunctionsUsd()).isCloseTo(7 * 0.000025 + 2 * 0.000001 + 1.5 * 0.00001667, within(1e-15));
        assertThat(snapshot.lambdaUsd()).isCloseTo(2 * 0.0000002 + 0.75 * 0.0000133334, within(1e-15));
        assertThat(snapshot.dynamoDbUsd()).isCloseTo(4 * 0.000000625 + 6 * 0.000000125, within(1e-15));
        assertThat(snapshot.logsUsd()).as("a GB ingested").isCloseTo(0.50, within(1e-15));
        assertThat(snapshot.punctualUsd()).isCloseTo(snapshot.stepFunctionsUsd() + snapshot.lambdaUsd()
                + snapshot.dynamoDbUsd() + snapshot.logsUsd(), within(1e-15));
        assertThat(snapshot.itemDeleteUsd()).isCloseTo(0.000000625, within(1e-15));
        assertThat(snapshot.toJson(1_000_000)).contains("\"expressRequests\":2", "\"expressGbSeconds\":1.5000",
                "\"logBytes\":1073741824", "\"cloudWatchLogs\":0.5000");
    }
}
