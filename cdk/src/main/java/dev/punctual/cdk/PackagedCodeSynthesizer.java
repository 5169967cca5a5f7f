package dev.punctual.cdk;

import software.amazon.awscdk.BootstraplessSynthesizer;
import software.amazon.awscdk.DockerImageAssetLocation;
import software.amazon.awscdk.DockerImageAssetSource;
import software.amazon.awscdk.FileAssetLocation;
import software.amazon.awscdk.FileAssetSource;

/**
 * Synthesizes a stack for {@code aws cloudformation package} instead of a CDK bootstrap stack: no
 * {@code BootstrapVersion} parameter or rule, no staging bucket. A file asset is not uploaded here: the stack
 * that uses it ({@link PunctualTemplateStack}) points the resource at the file by a path relative to the
 * template instead, which {@code package} uploads and rewrites into an S3 location.
 */
final class PackagedCodeSynthesizer extends BootstraplessSynthesizer {

    /**
     * What CDK renders for a file asset until the stack replaces it with the packaged path. Not a valid
     * bucket name, so a location left in place by mistake fails at the first deploy, never silently.
     */
    static final String UNPACKAGED = "UNPACKAGED";

    @Override
    public FileAssetLocation addFileAsset(FileAssetSource asset) {
        return FileAssetLocation.builder()
                .bucketName(UNPACKAGED)
                .objectKey(UNPACKAGED)
                .httpUrl(UNPACKAGED)
                .s3ObjectUrl(UNPACKAGED)
                .build();
    }

    @Override
    public DockerImageAssetLocation addDockerImageAsset(DockerImageAssetSource asset) {
        throw new UnsupportedOperationException("The packaged template carries no container images: `aws"
                + " cloudformation package` cannot build one");
    }
}
