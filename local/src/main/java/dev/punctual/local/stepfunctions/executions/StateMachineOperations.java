package dev.punctual.local.stepfunctions.executions;

import dev.punctual.local.stepfunctions.asl.ParsedDefinition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The Step Functions API's operations on state machines, with AWS's rules: CreateStateMachine is
 * idempotent for the same definition, role, type and logging, an Express machine's definition uses neither
 * {@code .sync} nor {@code .waitForTaskToken}, UpdateStateMachine adds a revision (running executions
 * finish on theirs), DeleteStateMachine leaves a machine {@code DELETING} while executions run. Each
 * change is durable (journaled) before it answers.
 */
final class StateMachineOperations {

    private final Registry registry;
    private final ExecutionHost host;

    StateMachineOperations(Registry registry, ExecutionHost host) {
        this.registry = registry;
        this.host = host;
    }

    StateMachineDescription createStateMachine(String name, String definitionJson, String roleArn, String type,
            ExecutionLogging logging) {
        Names.validate("name", name);
        WorkflowType workflowType = WorkflowType.of(type);
        EndpointArns.validateRoleArn(roleArn);
        ParsedDefinition parsed = host.parse(definitionJson);
        if (workflowType == WorkflowType.EXPRESS) {
            ExpressDefinitions.validate(definitionJson);
        }
        synchronized (registry) {
            StateMachine existing = registry.get(name);
            if (existing != null) {
                StateMachineRevision current = existing.current;
                if (!existing.deleting && current.parsed().json().equals(definitionJson)
                        && current.roleArn().equals(roleArn) && existing.type == workflowType
                        && existing.logging.equals(logging)) {
                    return describe(existing);
                }
                throw new StepFunctionsException(existing.deleting ? ErrorCode.STATE_MACHINE_DELETING
                        : ErrorCode.STATE_MACHINE_ALREADY_EXISTS, "State Machine Already Exists: '" + existing.arn
                        + "'" + (existing.deleting ? " (it is being deleted: its executions are still running)"
                        : " with a different definition or role; update it or pick another name"));
            }
            long creation = registry.nextCreationMillis(host.clock.millis());
            StateMachine sm = new StateMachine(host, name, host.arns.stateMachine(name), creation,
                    new StateMachineRevision(1, parsed, roleArn, creation), workflowType, logging);
            registry.put(sm);
            host.journal().append(JournalCodec.stateMachinePut(sm, sm.current)).join();
            return describe(sm);
        }
    }

    StateMachineDescription describeStateMachine(String stateMachineArn) {
        return describe(machine(stateMachineArn));
    }

    Page<StateMachineDescription> listStateMachines(int maxResults, String nextToken) {
        String after = nextToken == null ? null : PageToken.STATE_MACHINES.decode(nextToken);
        List<StateMachine> sorted = new ArrayList<>(registry.all());
        sorted.sort(Comparator.comparing(sm -> sm.name));
        List<StateMachineDescription> items = new ArrayList<>();
        String next = null;
        for (StateMachine sm : sorted) {
            if (after != null && sm.name.compareTo(after) <= 0) {
                continue;
            }
            if (items.size() == maxResults) {
                next = PageToken.STATE_MACHINES.encode(items.get(items.size() - 1).name());
                break;
            }
            items.add(describe(sm));
        }
        return new Page<>(items, next);
    }

    /** Updates the definition and/or role; running executions finish on the revision they started with. */
    Instant updateStateMachine(String stateMachineArn, String definitionJson, String roleArn) {
        if (definitionJson == null && roleArn == null) {
            throw new StepFunctionsException(ErrorCode.MISSING_REQUIRED_PARAMETER,
                    "Either the definition or the roleArn must be specified");
        }
        if (roleArn != null) {
            EndpointArns.validateRoleArn(roleArn);
        }
        ParsedDefinition parsed = definitionJson == null ? null : host.parse(definitionJson);
        synchronized (registry) {
            StateMachine sm = machine(stateMachineArn);
            if (sm.deleting) {
                throw deleting(sm);
            }
            if (parsed != null && sm.type == WorkflowType.EXPRESS) {
                ExpressDefinitions.validate(definitionJson);
            }
            StateMachineRevision current = sm.current;
            long now = host.clock.millis();
            StateMachineRevision next = new StateMachineRevision(current.revision() + 1,
                    parsed == null ? current.parsed() : parsed,
                    roleArn == null ? current.roleArn() : roleArn, now);
            sm.addRevision(next);
            host.journal().append(JournalCodec.stateMachinePut(sm, next)).join();
            return Instant.ofEpochMilli(now);
        }
    }

    /**
     * Deletes a state machine. As in AWS, one with running executions turns {@code DELETING}: each of
     * them fails with {@code States.Runtime} at its next state transition, and the machine goes once
     * none runs. Deleting an unknown machine succeeds, as it does in AWS.
     */
    void deleteStateMachine(String stateMachineArn) {
        String name = host.arns.stateMachineName(stateMachineArn);
        synchronized (registry) {
            StateMachine sm = registry.get(name);
            if (sm == null || sm.deleting) {
                return;
            }
            sm.deleting = true;
            host.journal().append(JournalCodec.stateMachineDelete(sm)).join();
            registry.removeIfDeleted(sm);
        }
    }

    // ---------------------------------------------------------------- lookups and checks

    /** The state machine of this ARN, or {@code StateMachineDoesNotExist}. */
    StateMachine machine(String stateMachineArn) {
        String name = host.arns.stateMachineName(stateMachineArn);
        StateMachine sm = registry.get(name);
        if (sm == null) {
            throw new StepFunctionsException(ErrorCode.STATE_MACHINE_DOES_NOT_EXIST,
                    "State Machine Does Not Exist: '" + stateMachineArn + "'");
        }
        return sm;
    }

    /** The answer to a change of a state machine that is being deleted. */
    static StepFunctionsException deleting(StateMachine sm) {
        return new StepFunctionsException(ErrorCode.STATE_MACHINE_DELETING,
                "State machine '" + sm.arn + "' is being deleted");
    }

    private static StateMachineDescription describe(StateMachine sm) {
        StateMachineRevision d = sm.current;
        return new StateMachineDescription(sm.arn, sm.name, sm.deleting ? "DELETING" : "ACTIVE", d.parsed().json(),
                d.roleArn(), sm.type.name(), Instant.ofEpochMilli(sm.creationMillis), Instant.ofEpochMilli(d.updateMillis()),
                sm.logging);
    }
}
