package dev.punctual.cdk;

import java.util.function.UnaryOperator;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.services.dynamodb.ITable;
import software.constructs.Construct;

/**
 * Punctual attached to a table this app does not manage, given by name and stream ARN. The table is
 * not modified: its stream and native TTL must already be enabled.
 */
public final class ExistingTableStack extends Stack {

    private final ITable table;
    private final PunctualExpiry expiry;

    /**
     * @param tuning adjusts the construct's props beyond table and TTL attribute (identity for defaults)
     * @throws IllegalArgumentException when the table name or stream ARN is missing or malformed
     */
    public ExistingTableStack(Construct scope, String id, StackProps stackProps, String tableName,
            String tableStreamArn, String ttlAttribute, UnaryOperator<PunctualExpiryProps.Builder> tuning) {
        super(scope, id, stackProps);
        this.table = PunctualExpiry.importTable(this, "Table", tableName, tableStreamArn);
        this.expiry = new PunctualExpiry(this, "Expiry",
                tuning.apply(PunctualExpiryProps.builder().table(table).ttlAttribute(ttlAttribute)).build());
        StackOutputs.add(this, tableName, expiry);
    }

    public ITable table() {
        return table;
    }

    public PunctualExpiry expiry() {
        return expiry;
    }
}
