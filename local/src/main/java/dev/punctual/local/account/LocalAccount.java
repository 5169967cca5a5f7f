package dev.punctual.local.account;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * The one AWS account the local runtime stands for: the partition, Region and account ID in every
 * local ARN, stream record and SDK client, and the credentials every local client signs with. Nothing
 * local checks a signature, and DynamoDB Local serves one shared database whatever the key, so the
 * credentials only have to be there; they are defined here once so that no part invents its own.
 *
 * <p>It sits in a package of its own, below every other part of {@code dev.punctual.local}, so the
 * engine, the stream poller, DynamoDB Local's clients and the runtime all read it without an upward
 * import.
 */
public final class LocalAccount {

    /** The partition of every local ARN. */
    public static final String PARTITION = "aws";
    /** The Region of every local ARN, record and client. */
    public static final String REGION = "us-east-1";
    /** The account of every local ARN. */
    public static final String ACCOUNT_ID = "123456789012";
    /** The access key ID of the local credentials. */
    public static final String ACCESS_KEY_ID = "local";
    /** The credentials every local SDK client signs with. */
    public static final AwsCredentialsProvider CREDENTIALS =
            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY_ID, "local"));

    private LocalAccount() {
    }

    /** {@link #REGION} as the SDK's type. */
    public static Region region() {
        return Region.of(REGION);
    }
}
