package dev.punctual.local.stream;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.Identity;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.StreamRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.Record;

/**
 * Turns a DynamoDB Streams record as the SDK v2 reads it into the record Lambda hands a function
 * ({@code aws-lambda-java-events}), field by field and for every attribute type, with the fields
 * Lambda adds: {@code eventSourceARN} (the stream ARN), {@code eventSource} {@code aws:dynamodb},
 * {@code eventVersion} {@code 1.1} and the region.
 */
public final class StreamRecordConverter {

    static final String EVENT_SOURCE = "aws:dynamodb";
    static final String EVENT_VERSION = "1.1";

    private StreamRecordConverter() {
    }

    /** The Lambda form of {@code record}, read from the stream {@code streamArn} in {@code region}. */
    public static DynamodbStreamRecord toLambda(Record record, String streamArn, String region) {
        DynamodbStreamRecord lambda = new DynamodbStreamRecord();
        lambda.setEventID(record.eventID());
        lambda.setEventName(record.eventNameAsString());
        lambda.setEventVersion(EVENT_VERSION);
        lambda.setEventSource(EVENT_SOURCE);
        lambda.setAwsRegion(region);
        lambda.setEventSourceARN(streamArn);
        if (record.dynamodb() != null) {
            lambda.setDynamodb(toLambda(record.dynamodb()));
        }
        if (record.userIdentity() != null) {
            Identity identity = new Identity();
            identity.setType(record.userIdentity().type());
            identity.setPrincipalId(record.userIdentity().principalId());
            lambda.setUserIdentity(identity);
        }
        return lambda;
    }

    private static StreamRecord toLambda(software.amazon.awssdk.services.dynamodb.model.StreamRecord sdk) {
        StreamRecord lambda = new StreamRecord();
        if (sdk.approximateCreationDateTime() != null) {
            lambda.setApproximateCreationDateTime(Date.from(sdk.approximateCreationDateTime()));
        }
        if (sdk.hasKeys()) {
            lambda.setKeys(toLambda(sdk.keys()));
        }
        if (sdk.hasNewImage()) {
            lambda.setNewImage(toLambda(sdk.newImage()));
        }
        if (sdk.hasOldImage()) {
            lambda.setOldImage(toLambda(sdk.oldImage()));
        }
        lambda.setSequenceNumber(sdk.sequenceNumber());
        lambda.setSizeBytes(sdk.sizeBytes());
        if (sdk.streamViewTypeAsString() != null) {
            lambda.setStreamViewType(com.amazonaws.services.lambda.runtime.events.models.dynamodb.StreamViewType
                    .fromValue(sdk.streamViewTypeAsString()));
        }
        return lambda;
    }

    /** The Lambda form of an item image or key. */
    public static Map<String, AttributeValue> toLambda(
            Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> sdk) {
        Map<String, AttributeValue> lambda = new LinkedHashMap<>();
        sdk.forEach((name, value) -> lambda.put(name, toLambda(value)));
        return lambda;
    }

    /** The Lambda form of one attribute value, of any type. */
    public static AttributeValue toLambda(software.amazon.awssdk.services.dynamodb.model.AttributeValue sdk) {
        AttributeValue lambda = new AttributeValue();
        switch (sdk.type()) {
            case S -> lambda.setS(sdk.s());
            case N -> lambda.setN(sdk.n());
            case B -> lambda.setB(copy(sdk.b()));
            case SS -> lambda.setSS(List.copyOf(sdk.ss()));
            case NS -> lambda.setNS(List.copyOf(sdk.ns()));
            case BS -> lambda.setBS(sdk.bs().stream().map(StreamRecordConverter::copy).toList());
            case M -> lambda.setM(toLambda(sdk.m()));
            case L -> {
                List<AttributeValue> list = new ArrayList<>(sdk.l().size());
                sdk.l().forEach(element -> list.add(toLambda(element)));
                lambda.setL(list);
            }
            case BOOL -> lambda.setBOOL(sdk.bool());
            case NUL -> lambda.setNULL(sdk.nul());
            default -> throw new IllegalArgumentException("stream record holds an attribute of a type this SDK does"
                    + " not know (" + sdk + "); upgrade the AWS SDK");
        }
        return lambda;
    }

    private static ByteBuffer copy(SdkBytes bytes) {
        return ByteBuffer.wrap(bytes.asByteArray());
    }
}
