package dev.punctual.local.stepfunctions.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.executions.ErrorCode;
import dev.punctual.local.stepfunctions.executions.ExecutionLogging;
import dev.punctual.local.stepfunctions.executions.StepFunctionsException;

/** Typed access to a request's JSON fields, refusing missing and mistyped ones with the field named. */
final class RequestFields {

    private final JsonNode body;

    RequestFields(JsonNode body) {
        this.body = body;
    }

    String requiredString(String field) {
        String value = optionalString(field);
        if (value == null) {
            throw new StepFunctionsException(ErrorCode.VALIDATION, "1 validation error detected: Value null at '"
                    + field + "' failed to satisfy constraint: Member must not be null");
        }
        return value;
    }

    /** {@code null} when absent or JSON null. */
    String optionalString(String field) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw new StepFunctionsException(ErrorCode.SERIALIZATION, "Field '" + field
                    + "' must be a string, not " + value.getNodeType().toString().toLowerCase());
        }
        return value.textValue();
    }

    int optionalInt(String field, int defaultValue, int min, int max) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            return defaultValue;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw new StepFunctionsException(ErrorCode.SERIALIZATION, "Field '" + field
                    + "' must be an integer, not " + value);
        }
        int v = value.intValue();
        if (v < min || v > max) {
            throw new StepFunctionsException(ErrorCode.VALIDATION, "1 validation error detected: Value '" + v
                    + "' at '" + field + "' failed to satisfy constraint: Member must have value between "
                    + min + " and " + max);
        }
        return v;
    }

    boolean optionalBoolean(String field, boolean defaultValue) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            return defaultValue;
        }
        if (!value.isBoolean()) {
            throw new StepFunctionsException(ErrorCode.SERIALIZATION, "Field '" + field
                    + "' must be a boolean, not " + value);
        }
        return value.booleanValue();
    }

    /**
     * {@code loggingConfiguration}: its {@code level} (default {@code OFF}) and
     * {@code includeExecutionData} (default false); its destinations are CloudWatch Logs' business, so
     * they are accepted and not kept.
     */
    ExecutionLogging logging() {
        JsonNode value = body.get("loggingConfiguration");
        if (value == null || value.isNull()) {
            return ExecutionLogging.OFF;
        }
        if (!value.isObject()) {
            throw new StepFunctionsException(ErrorCode.SERIALIZATION, "Field 'loggingConfiguration' must be an object");
        }
        RequestFields logging = new RequestFields(value);
        String level = logging.optionalString("level");
        return new ExecutionLogging(level == null ? "OFF" : level, logging.optionalBoolean("includeExecutionData", false));
    }
}
