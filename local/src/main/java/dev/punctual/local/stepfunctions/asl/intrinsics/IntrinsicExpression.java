package dev.punctual.local.stepfunctions.asl.intrinsics;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;
import java.util.List;

/** A parsed intrinsic-function argument: a literal, a path, or a nested call. */
public sealed interface IntrinsicExpression {

    /** A literal; for strings {@code raw} keeps the escapes, which States.Format needs to tell {@code \{} from {@code {}}. */
    record Literal(JsonNode value, String raw) implements IntrinsicExpression {
    }

    /** A path into the state's data or the context object. */
    record PathRef(JsonPaths.Path path) implements IntrinsicExpression {
    }

    /** A call such as {@code States.Format('{}', $.name)}. */
    record Call(String name, List<IntrinsicExpression> arguments) implements IntrinsicExpression {
    }
}
