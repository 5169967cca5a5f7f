package dev.punctual.local.stepfunctions.asl.states;

import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A state type: its {@code Type} as definitions write it, the fields it takes and how it reads them.
 * Each state class declares its own as {@code TYPE}, beside the code that uses those fields.
 *
 * @param name the {@code Type}, also the prefix of the state's history events
 * @param commonFields the fields it shares with other states, read by {@link StateFields#read}
 * @param ownFields the fields only its own {@code reader} reads
 * @param refuseUnsupported refuses, before the unknown-field check would, the fields of a variant of
 *     the type this runtime does not run, saying so
 */
@SuppressWarnings("varargs")
public record StateType(String name, Set<String> commonFields, Set<String> ownFields, Reader reader,
        Consumer<DefinitionNode> refuseUnsupported) {

    /** A type with no variant this runtime refuses by name. */
    public StateType(String name, Set<String> commonFields, Set<String> ownFields, Reader reader) {
        this(name, commonFields, ownFields, reader, node -> { });
    }

    /** Builds the state from its common fields and its JSON object, checking its own fields. */
    public interface Reader {
        State read(StateFields fields, DefinitionNode node);
    }

    /** The union of groups of common fields, e.g. {@link StateFields#TRANSITION} and {@link StateFields#PATHS}. */
    public static Set<String> common(Set<String>... groups) {
        Set<String> union = new HashSet<>();
        for (Set<String> group : groups) {
            union.addAll(group);
        }
        return Set.copyOf(union);
    }

    /**
     * Every field this type allows: {@code Type}, {@code Comment}, {@code QueryLanguage} (which any state
     * may name; the parser accepts only JSONPath), the common fields and its own.
     */
    public Set<String> allowedFields() {
        Set<String> allowed = new HashSet<>(commonFields);
        allowed.addAll(ownFields);
        allowed.add("Type");
        allowed.add("Comment");
        allowed.add("QueryLanguage");
        return allowed;
    }
}
