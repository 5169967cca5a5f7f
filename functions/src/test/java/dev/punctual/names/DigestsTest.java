package dev.punctual.names;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ItemKey;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DigestsTest {

    @Test
    void digests_areStableAcrossVersions() {
        // Pinned and recomputed independently like an item's name: a changed scheme would, after an
        // upgrade, write redelivered chunks beside their first copy, give a redelivered expiry event
        // another id and lose the thread between a key's log lines.
        ItemKey key = ItemKey.of(Map.of("id", AttributeText.s("a")));
        assertThat(Digests.keyDigest("orders", key)).isEqualTo("7f6b21020f5a");
        assertThat(Digests.chunkDigest("orders", 1_800_000_030L, List.of(Map.entry(key, "1800000030"))))
                .isEqualTo("paz5lvxtsddpt3cebaam");
        assertThat(Digests.expiryEventId("orders", key, "1795302312", "4900000000000000000001"))
                .isEqualTo("24adg7twuzswb52yrcfp25es2x");
    }

    @Test
    void keyDigest_isShortAndDoesNotHoldTheKey() {
        String digest = Digests.keyDigest("orders", ItemKey.of(Map.of("id", AttributeText.s("secret-user-42"))));

        assertThat(digest).matches("[0-9a-f]{12}").doesNotContain("secret");
        assertThat(digest).isNotEqualTo(Digests.keyDigest("orders", ItemKey.of(Map.of("id", AttributeText.s("secret-user-43")))));
    }

    @Test
    void chunkDigest_isTheSameForTheSameChunk_andDiffersForAnyOtherInTheSameSecond() {
        ItemKey a = ItemKey.of(Map.of("id", AttributeText.s("a")));
        ItemKey b = ItemKey.of(Map.of("id", AttributeText.s("b")));
        String digest = Digests.chunkDigest("orders", 1_800_000_030L, List.of(Map.entry(a, "1800000030")));

        assertThat(Digests.chunkDigest("orders", 1_800_000_030L, List.of(Map.entry(a, "1800000030")))).isEqualTo(digest);
        assertThat(List.of(
                Digests.chunkDigest("orders", 1_800_000_030L, List.of(Map.entry(b, "1800000030"))),
                Digests.chunkDigest("orders", 1_800_000_030L, List.of(Map.entry(a, "1800000029.5"))),
                Digests.chunkDigest("orders", 1_800_000_030L, List.of(Map.entry(a, "1800000030"), Map.entry(b, "1800000030"))),
                Digests.chunkDigest("orders", 1_800_000_031L, List.of(Map.entry(a, "1800000030"))),
                Digests.chunkDigest("orders2", 1_800_000_030L, List.of(Map.entry(a, "1800000030")))))
                .doesNotContain(digest).doesNotHaveDuplicates();
    }

    @Test
    void expiryEventId_differsForEveryPartOfTheRecord_andTakesMissingPartsAsEmpty() {
        ItemKey key = ItemKey.of(Map.of("id", AttributeText.s("a")));
        String id = Digests.expiryEventId("orders", key, "1795302312", "49001");

        assertThat(List.of(
                Digests.expiryEventId("orders2", key, "1795302312", "49001"),
                Digests.expiryEventId("orders", ItemKey.of(Map.of("id", AttributeText.s("b"))), "1795302312", "49001"),
                Digests.expiryEventId("orders", key, "1795302313", "49001"),
                Digests.expiryEventId("orders", key, "1795302312", "49002")))
                .doesNotContain(id).doesNotHaveDuplicates();
        assertThat(Digests.expiryEventId("orders", key, null, null)).isEqualTo(Digests.expiryEventId("orders", key, "", ""));
    }
}
