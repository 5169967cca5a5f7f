package dev.punctual.local.dynamodb;

import com.almworks.sqlite4java.SQLiteConnection;
import com.almworks.sqlite4java.SQLiteException;
import com.almworks.sqlite4java.SQLiteStatement;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads the index names of DynamoDB Local's stream-record table straight from its database file. */
final class StreamIndexProbe {

    private StreamIndexProbe() {
    }

    static List<String> indexNames(Path databaseFile) {
        SQLiteConnection connection = new SQLiteConnection(databaseFile.toFile());
        try {
            connection.openReadonly();
            SQLiteStatement query = connection.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'us'");
            List<String> names = new ArrayList<>();
            while (query.step()) {
                names.add(query.columnString(0));
            }
            query.dispose();
            return names;
        } catch (SQLiteException e) {
            throw new IllegalStateException("cannot read " + databaseFile, e);
        } finally {
            connection.dispose();
        }
    }
}
