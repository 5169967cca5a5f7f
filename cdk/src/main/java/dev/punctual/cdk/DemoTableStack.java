package dev.punctual.cdk;

import java.util.function.UnaryOperator;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.services.dynamodb.Attribute;
import software.amazon.awscdk.services.dynamodb.AttributeType;
import software.amazon.awscdk.services.dynamodb.BillingMode;
import software.amazon.awscdk.services.dynamodb.PointInTimeRecoverySpecification;
import software.amazon.awscdk.services.dynamodb.StreamViewType;
import software.amazon.awscdk.services.dynamodb.Table;
import software.constructs.Construct;

/**
 * A new table with Punctual attached: string key {@value #PARTITION_KEY}, on-demand, a
 * NEW_AND_OLD_IMAGES stream, and native TTL on the same attribute as the backstop.
 */
public final class DemoTableStack extends Stack {

    /** The demo table's partition key. */
    public static final String PARTITION_KEY = "pk";

    private final Table table;
    private final PunctualExpiry expiry;

    /**
     * @param tuning adjusts the construct's props beyond table and TTL attribute (identity for defaults)
     */
    public DemoTableStack(Construct scope, String id, StackProps stackProps, String ttlAttribute,
            UnaryOperator<PunctualExpiryProps.Builder> tuning) {
        super(scope, id, stackProps);
        this.table = createTable(ttlAttribute);
        this.expiry = new PunctualExpiry(this, "Expiry",
                tuning.apply(PunctualExpiryProps.builder().table(table).ttlAttribute(ttlAttribute)).build());
        StackOutputs.add(this, table.getTableName(), expiry);
    }

    public Table table() {
        return table;
    }

    public PunctualExpiry expiry() {
        return expiry;
    }

    private Table createTable(String ttlAttribute) {
        return Table.Builder.create(this, "Table")
                .partitionKey(Attribute.builder().name(PARTITION_KEY).type(AttributeType.STRING).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .stream(StreamViewType.NEW_AND_OLD_IMAGES)
                .timeToLiveAttribute(ttlAttribute)
                .pointInTimeRecoverySpecification(PointInTimeRecoverySpecification.builder()
                        .pointInTimeRecoveryEnabled(true).build())
                // A demo: `cdk destroy` should leave nothing behind.
                .removalPolicy(RemovalPolicy.DESTROY)
                .build();
    }
}
