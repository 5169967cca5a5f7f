package dev.punctual.local.dynamodb;

import com.almworks.sqlite4java.SQLiteConnection;
import com.almworks.sqlite4java.SQLiteException;
import com.almworks.sqlite4java.SQLiteStatement;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads DynamoDB Local's database file with the SQLite build DynamoDB Local itself loads (the server
 * must be stopped): the indexes of its stream-record table, and the plan SQLite chooses for a query.
 */
final class StreamIndexProbe {

    /** DynamoDB Local 2.6.1's GetRecords query ({@code SQLiteDBAccess.getStreamRecords}). */
    static final String GET_RECORDS = "SELECT SequenceNumber, StreamRecord, OperationType, CreationDateTime FROM us"
            + " WHERE StreamID = ? AND ShardID = ? AND SequenceNumber >= ? AND CreationDateTime > ?"
            + " ORDER BY SequenceNumber ASC LIMIT ?";
    /** DynamoDB Local 2.6.1's first-sequence-number lookup, run on every write to a table with a stream. */
    static final String FIRST_SEQUENCE_NUMBER = "SELECT MIN(SequenceNumber) FROM us WHERE StreamID = ?";

    private StreamIndexProbe() {
    }

    static List<String> indexNames(Path databaseFile) {
        return query(databaseFile, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'us'", 0);
    }

    /** The {@code detail} lines of {@code EXPLAIN QUERY PLAN sql}, with every parameter left unbound. */
    static List<String> plan(Path databaseFile, String sql) {
        return query(databaseFile, "EXPLAIN QUERY PLAN " + sql, 3);
    }

    /** Runs one statement on the stopped database, e.g. to add the index an older runtime version added. */
    static void exec(Path databaseFile, String sql) {
        SQLiteConnection connection = new SQLiteConnection(databaseFile.toFile());
        try {
            connection.open(false);
            connection.exec(sql);
        } catch (SQLiteException e) {
            throw new IllegalStateException("cannot change " + databaseFile, e);
        } finally {
            connection.dispose();
        }
    }

    private static List<String> query(Path databaseFile, String sql, int column) {
        SQLiteConnection connection = new SQLiteConnection(databaseFile.toFile());
        try {
            connection.openReadonly();
            SQLiteStatement query = connection.prepare(sql);
            List<String> values = new ArrayList<>();
            while (query.step()) {
                values.add(query.columnString(column));
            }
            query.dispose();
            return values;
        } catch (SQLiteException e) {
            throw new IllegalStateException("cannot read " + databaseFile, e);
        } finally {
            connection.dispose();
        }
    }
}
