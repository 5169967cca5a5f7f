// Runs state machines on aws-local-stepfunctions, an ASL interpreter written independently of ours, for
// the differential conformance tests (DifferentialConformanceTest, GeneratedMachinesPropertyTest).
//
// One long-lived process: each stdin line is a case, each stdout line its result, in order.
//   case:   {id, definition, input, now, context, tasks: {resourceArn: [answer, ...]}, validate?}
//           answer: {result: json} | {error, cause} | {echo: true} | {never: true}; the last one repeats
//   result: {id, status: SUCCEEDED|FAILED|TIMED_OUT|INVALID, output?, error?, cause?, finishedAt, message?}
//
// Time is virtual (@sinonjs/fake-timers), starting at the case's `now`: Wait states, retry intervals,
// task and execution timeouts run in full, instantly, and `finishedAt` says when the run ended on that
// clock, as our engine runs on its manual timer. That checks more than the interpreter's wait-time
// overrides would (an override replaces the computed wait by a fixed one).

import readline from 'node:readline';
import FakeTimers from '@sinonjs/fake-timers';

// aws-local-stepfunctions 3.0.0 declares Node >= 22 for two standard functions and nothing else:
// Promise.withResolvers (Node 22, its Task timeout) and AbortSignal.any (Node 20.3, its abort wiring).
// Older Node (Debian's, which .ci/run may install) runs it with these supplied.
if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function withResolvers() {
    let resolve;
    let reject;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}
if (typeof AbortSignal.any !== 'function') {
  AbortSignal.any = function any(signals) {
    const controller = new AbortController();
    for (const signal of signals) {
      if (signal.aborted) {
        controller.abort(signal.reason);
        break;
      }
      signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
    }
    return controller.signal;
  };
}

const { StateMachine, ExecutionError, ExecutionTimeoutError } = await import('aws-local-stepfunctions');

/** Maps every Task state's name (in the whole definition, branches and iterators too) to its Resource. */
function taskStates(definition, found = {}) {
  for (const [name, state] of Object.entries(definition.States ?? {})) {
    if (state.Type === 'Task') {
      found[name] = state.Resource;
    }
    for (const branch of state.Branches ?? []) {
      taskStates(branch, found);
    }
    for (const nested of [state.Iterator, state.ItemProcessor]) {
      if (nested) {
        taskStates(nested, found);
      }
    }
  }
  return found;
}

/** Task handlers answering from the case's canned answers, per resource, in call order. */
function taskHandlers(definition, tasks) {
  const calls = {};
  const answer = (resource, input) => {
    const answers = tasks?.[resource];
    if (!answers || answers.length === 0) {
      throw Object.assign(new Error(`no canned answer for ${resource}`), { name: 'Harness.NoAnswer' });
    }
    const call = calls[resource] ?? 0;
    calls[resource] = call + 1;
    const a = answers[Math.min(call, answers.length - 1)];
    if (a.never) {
      return new Promise(() => {});
    }
    if (a.error !== undefined) {
      throw Object.assign(new Error(a.cause ?? ''), { name: a.error });
    }
    if (a.echo) {
      return input;
    }
    return a.result;
  };
  const handlers = {};
  for (const [name, resource] of Object.entries(taskStates(definition))) {
    handlers[name] = (input) => answer(resource, input);
  }
  return handlers;
}

function failure(error) {
  if (error instanceof ExecutionTimeoutError) {
    return { status: 'TIMED_OUT', error: 'States.Timeout' };
  }
  const cause = error instanceof ExecutionError ? error.cause : error;
  return { status: 'FAILED', error: cause?.name ?? null, cause: cause?.message ?? null };
}

async function run(c) {
  const clock = FakeTimers.install({
    now: Date.parse(c.now),
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
  try {
    let machine;
    try {
      // Validation (asl-validator) builds a fresh JSON-schema compiler for every definition, about half a
      // second each: generated cases, valid by construction, skip it with validate: false.
      const validationOptions = c.validate === false ? { noValidate: true } : { checkArn: false };
      machine = new StateMachine(c.definition, { validationOptions });
    } catch (e) {
      return { status: 'INVALID', message: String(e.message).slice(0, 2000) };
    }
    const execution = machine.run(c.input, {
      context: c.context,
      overrides: { taskResourceLocalHandlers: taskHandlers(c.definition, c.tasks) },
    });
    let settled = null;
    execution.result.then(
      (output) => { settled = { status: 'SUCCEEDED', output: output === undefined ? null : output }; },
      (error) => { settled = failure(error); },
    );
    // Advance virtual time one timer at a time until the execution settles (a task that never answers
    // still ends, through its 60 s default timeout or the machine's TimeoutSeconds).
    for (let i = 0; settled === null && i < 100000; i++) {
      await clock.nextAsync();
    }
    if (settled === null) {
      execution.abort();
      return { status: 'STUCK', message: 'no timer left and the execution has not ended' };
    }
    return { ...settled, finishedAt: new Date(clock.now).toISOString() };
  } finally {
    clock.uninstall();
  }
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
for await (const line of lines) {
  if (line.trim() === '') {
    continue;
  }
  let c;
  let result;
  try {
    c = JSON.parse(line);
    result = await run(c);
  } catch (e) {
    result = { status: 'HARNESS_ERROR', message: String(e?.stack ?? e).slice(0, 2000) };
  }
  process.stdout.write(`${JSON.stringify({ id: c?.id ?? null, ...result })}\n`);
}
