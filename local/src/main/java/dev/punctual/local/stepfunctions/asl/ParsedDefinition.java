package dev.punctual.local.stepfunctions.asl;

/** A definition that parsed and validated; opaque to everything but the interpreter that made it. */
public interface ParsedDefinition {

    /** The definition text as given. */
    String json();
}
