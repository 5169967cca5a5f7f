package dev.punctual.local.stream;

import java.util.Objects;

/**
 * A table whose stream the poller reads: it has a stream and TTL enabled.
 *
 * @param tableName    the table
 * @param streamArn    its current stream ({@code LatestStreamArn})
 * @param ttlAttribute the attribute DescribeTimeToLive names
 */
public record WatchedTable(String tableName, String streamArn, String ttlAttribute) {

    /** The Region DynamoDB Local writes in every ARN it makes, whatever Region its clients sign for. */
    static final String DYNAMODB_LOCAL_REGION = "ddblocal";

    public WatchedTable {
        Objects.requireNonNull(tableName, "tableName");
        Objects.requireNonNull(streamArn, "streamArn");
        Objects.requireNonNull(ttlAttribute, "ttlAttribute");
    }

    /**
     * The stream ARN as the event source mapping hands it to the function ({@code eventSourceARN}) and
     * names it in an on-failure message: {@link #streamArn}, except that DynamoDB Local's Region
     * ({@value #DYNAMODB_LOCAL_REGION}) reads {@code region}, the Region of the records' {@code awsRegion}
     * and of the function's ARN. AWS gives all of them one Region (its recordings of a DynamoDB stream
     * mapping: {@code "awsRegion": "<region>"} beside
     * {@code "eventSourceARN": "arn:<partition>:dynamodb:<region>:...:table/<resource:1>/stream/<resource:2>"}).
     * Any other ARN, e.g. LocalStack's, is kept as it is.
     */
    public String eventSourceArn(String region) {
        String[] parts = streamArn.split(":", 6);
        if (parts.length == 6 && parts[0].equals("arn") && parts[2].equals("dynamodb")
                && parts[3].equals(DYNAMODB_LOCAL_REGION)) {
            parts[3] = region;
            return String.join(":", parts);
        }
        return streamArn;
    }
}
