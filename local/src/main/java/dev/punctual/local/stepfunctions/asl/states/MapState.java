package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.errors.AslError;
import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;
import java.util.Set;

/**
 * Inline {@code Map}: runs its item processor once per element of the array at {@code ItemsPath},
 * at most {@code MaxConcurrency} at a time (0 = all), and results in the outputs in item order. The
 * first failing iteration stops the others and fails the attempt with its error; a retry starts the Map
 * again ({@code MapStateStarted}), and {@code MapStateFailed} closes it once no Retrier retries it.
 */
public final class MapState extends State {

    /** {@code Parameters} is the legacy name of {@code ItemSelector} here, not a common field. */
    public static final StateType TYPE = new StateType("Map",
            StateType.common(StateFields.TRANSITION, StateFields.PATHS, StateFields.RESULT_AND_ERRORS),
            Set.of("ItemsPath", "ItemSelector", "Parameters", "MaxConcurrency", "Iterator", "ItemProcessor"),
            MapState::read, MapState::refuseDistributed);
    /** Fields of the distributed Map state, which this runtime does not run. */
    private static final Set<String> DISTRIBUTED_FIELDS = Set.of("ItemReader", "ItemBatcher", "ResultWriter",
            "ToleratedFailurePercentage", "ToleratedFailureCount", "ToleratedFailurePercentagePath",
            "ToleratedFailureCountPath", "Label", "MaxConcurrencyPath");

    private final JsonPaths.Path itemsPath;
    private final PayloadTemplate itemSelector;
    private final int maxConcurrency;
    private final StateMachineGraph processor;

    public MapState(StateFields fields, JsonPaths.Path itemsPath, PayloadTemplate itemSelector, int maxConcurrency,
            StateMachineGraph processor) {
        super(fields);
        this.itemsPath = itemsPath;
        this.itemSelector = itemSelector;
        this.maxConcurrency = maxConcurrency;
        this.processor = processor;
    }

    @Override
    public String type() {
        return TYPE.name();
    }

    /** Refuses the distributed Map's fields by name, before the unknown-field check would. */
    private static void refuseDistributed(DefinitionNode node) {
        for (String field : DISTRIBUTED_FIELDS) {
            if (node.has(field)) {
                throw node.error(field, "The field '" + field + "' belongs to the distributed Map state, which this"
                        + " runtime does not support");
            }
        }
    }

    private static MapState read(StateFields fields, DefinitionNode node) {
        node.exclusive("Iterator", "ItemProcessor");
        node.exclusive("ItemSelector", "Parameters");
        String processorField = node.has("ItemProcessor") ? "ItemProcessor" : "Iterator";
        JsonNode processor = node.get(processorField);
        if (processor == null || !processor.isObject()) {
            throw node.error("ItemProcessor", "A Map state needs 'ItemProcessor' (or the legacy 'Iterator')");
        }
        JsonNode config = processor.get("ProcessorConfig");
        if (config != null) {
            JsonNode mode = config.get("Mode");
            if (mode != null && !"INLINE".equals(mode.asText())) {
                throw node.field(processorField).field("ProcessorConfig").error("Mode",
                        "Only ProcessorConfig Mode INLINE is supported, not " + mode);
            }
        }
        PayloadTemplate selector = node.optionalTemplate(node.has("ItemSelector") ? "ItemSelector" : "Parameters");
        int maxConcurrency = (int) node.nonNegativeInteger("MaxConcurrency", 0);
        return new MapState(fields, node.optionalPath("ItemsPath"), selector, maxConcurrency,
                node.parser().graph(node.field(processorField)));
    }

    @Override
    protected boolean producesResult() {
        return true;
    }

    @Override
    protected void act(Attempt attempt) {
        JsonNode items = attempt.input();
        if (itemsPath != null) {
            items = itemsPath.find(attempt.input(), attempt.context())
                    .orElseThrow(() -> invalidPath(itemsPath, attempt.input(), attempt.context()));
        }
        if (!items.isArray()) {
            throw new StatesRuntimeError("Reference path \"" + itemsPathAsQuoted() + "\" must point to array.");
        }
        ObjectNode started = attempt.details();
        started.put("length", items.size());
        attempt.emit("MapStateStarted", started);
        attempt.failsForGoodWith("MapStateFailed");
        new Iterations(attempt, (ArrayNode) items).begin();
    }

    /**
     * The ItemsPath as AWS quotes it when it selects no array: {@code $} when absent, and a context path
     * with one {@code $} ({@code Reference path "$.Execution.Input" must point to array.} for
     * {@code $$.Execution.Input}, recorded through TestState).
     */
    private String itemsPathAsQuoted() {
        if (itemsPath == null) {
            return "$";
        }
        return itemsPath.context() ? itemsPath.text().substring(1) : itemsPath.text();
    }

    /** The iterations of one Map attempt; touched only from the execution's trampoline. */
    private final class Iterations {
        private final Attempt attempt;
        private final ArrayNode items;
        private final JsonNode[] results;
        private final GraphRun[] runs;
        private int nextToStart;
        private int finished;
        private boolean failed;

        Iterations(Attempt attempt, ArrayNode items) {
            this.attempt = attempt;
            this.items = items;
            this.results = new JsonNode[items.size()];
            this.runs = new GraphRun[items.size()];
        }

        void begin() {
            if (items.isEmpty()) {
                succeed();
                return;
            }
            int limit = maxConcurrency <= 0 ? items.size() : Math.min(maxConcurrency, items.size());
            for (int i = 0; i < limit; i++) {
                startNext();
            }
        }

        private void startNext() {
            if (failed || nextToStart >= items.size()) {
                return;
            }
            int index = nextToStart++;
            JsonNode item = items.get(index);
            JsonNode input;
            try {
                input = itemInput(index, item);
            } catch (AslError e) {
                fail(index, e);
                return;
            }
            ObjectNode details = iterationDetails(index);
            attempt.emit("MapIterationStarted", details);
            GraphRun run = attempt.childRun(processor, result -> finishedIteration(index, result));
            runs[index] = run;
            run.start(input);
        }

        private JsonNode itemInput(int index, JsonNode item) {
            if (itemSelector == null) {
                return item;
            }
            ObjectNode context = attempt.context().deepCopy();
            ObjectNode mapItem = context.putObject("Map").putObject("Item");
            mapItem.put("Index", index);
            mapItem.set("Value", item);
            return itemSelector.evaluate(attempt.input(), context);
        }

        private void finishedIteration(int index, GraphRun.Result result) {
            if (failed) {
                return;
            }
            if (!result.succeeded()) {
                fail(index, result.error());
                return;
            }
            attempt.emit("MapIterationSucceeded", iterationDetails(index));
            results[index] = result.output();
            finished++;
            if (finished == items.size()) {
                succeed();
            } else {
                startNext();
            }
        }

        private void fail(int index, AslError error) {
            failed = true;
            attempt.emit("MapIterationFailed", iterationDetails(index));
            for (GraphRun run : runs) {
                if (run != null) {
                    run.scope.stop();
                }
            }
            attempt.fail(error);
        }

        private void succeed() {
            ArrayNode output = Json.MAPPER.createArrayNode();
            for (JsonNode result : results) {
                output.add(result);
            }
            attempt.emit("MapStateSucceeded", attempt.details());
            attempt.complete(output);
        }

        private ObjectNode iterationDetails(int index) {
            ObjectNode details = attempt.details();
            details.put("name", name());
            details.put("index", index);
            return details;
        }
    }
}
