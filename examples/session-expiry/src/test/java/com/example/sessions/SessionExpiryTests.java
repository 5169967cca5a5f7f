package com.example.sessions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.punctual.junit.ExpiredItems;
import dev.punctual.junit.ExpiryTables;
import dev.punctual.junit.ItemExpired;
import dev.punctual.junit.PunctualTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The application's sessions on Punctual's runtime, with time the test moves: a session ends at its
 * 30th minute to the second (open a second before, gone at it), a remembered one a year later, and a
 * session extended before its end does not end then. Each subclass runs these in one mode, and differs
 * from the other only in the mode it passes to the extension.
 */
abstract class SessionExpiryTests {

    private static final AtomicInteger TABLES = new AtomicInteger();

    private String table;
    private SessionStore sessions;
    private final SignOuts signOuts = new SignOuts();

    @BeforeEach
    void createTable(DynamoDbClient dynamoDb, ExpiryTables tables, PunctualTime time) {
        table = tables.create("sessions-" + TABLES.incrementAndGet(), SessionStore.KEY, SessionStore.TTL);
        sessions = new SessionStore(dynamoDb, table, time.clock());
    }

    /** What EventBridge does in AWS: hands each ItemExpired event of the sessions table to the reaction. */
    private void deliverExpiryEvents(ExpiredItems expired) {
        List<String> seen = signOuts.log().stream().map(SignOuts.SignOut::sessionId).toList();
        for (ItemExpired event : expired.of(table)) {
            String id = event.key(SessionStore.KEY);
            if (!seen.contains(id)) {
                assertTrue(event.byPunctual(), "expired by Punctual's own delete, not native TTL: " + event);
                signOuts.sessionExpired(id, event.deletedAt());
            }
        }
    }

    @Test
    void aSession_endsAtItsThirtiethMinuteToTheSecond_andARememberedOneAYearLater(PunctualTime time, ExpiredItems expired) {
        Instant opened = time.now();
        String session = sessions.open("ada");
        String remembered = sessions.open("grace");
        sessions.extend(remembered, Duration.ofDays(365));

        time.advance(SessionStore.LIFETIME.minusSeconds(1));
        assertTrue(sessions.isOpen(session), "a second before its 30 minutes are up");
        time.advance(Duration.ofSeconds(1));
        assertFalse(sessions.isOpen(session), "at its 30th minute");
        deliverExpiryEvents(expired);
        assertEquals(List.of(new SignOuts.SignOut(session, opened.plus(SessionStore.LIFETIME))), signOuts.log());

        Instant rememberedEnd = opened.plus(Duration.ofDays(365));
        time.advanceTo(rememberedEnd.minusSeconds(1));
        assertTrue(sessions.isOpen(remembered), "a second before its year is up");
        time.advance(Duration.ofSeconds(1));
        assertFalse(sessions.isOpen(remembered), "at the end of its year");
        deliverExpiryEvents(expired);
        assertEquals(new SignOuts.SignOut(remembered, rememberedEnd), signOuts.log().get(1));
    }

    @Test
    void aSessionExtendedBeforeItsEnd_doesNotEndThen_butThirtyMinutesAfterTheExtension(PunctualTime time,
            ExpiredItems expired) {
        Instant opened = time.now();
        String session = sessions.open("ada");
        time.advance(Duration.ofMinutes(20));
        sessions.extend(session, SessionStore.LIFETIME);

        time.advanceTo(opened.plus(SessionStore.LIFETIME).plusSeconds(1));
        assertTrue(sessions.isOpen(session), "past its first end: the extension moved it");
        deliverExpiryEvents(expired);
        assertEquals(List.of(), signOuts.log());

        Instant end = opened.plus(Duration.ofMinutes(20)).plus(SessionStore.LIFETIME);
        time.advanceTo(end.minusSeconds(1));
        assertTrue(sessions.isOpen(session), "a second before the extended end");
        time.advanceTo(end);
        assertFalse(sessions.isOpen(session), "at the extended end");
        deliverExpiryEvents(expired);
        assertEquals(List.of(new SignOuts.SignOut(session, end)), signOuts.log());
    }
}
