package dev.punctual.local.stepfunctions.asl.states;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs an execution's steps one at a time, in order, on whichever thread posts first: state
 * transitions do not grow the stack (a Choice loop can run forever), and callbacks arriving from
 * task or timer threads never run a state of the same execution concurrently.
 */
final class Trampoline {

    private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger work = new AtomicInteger();

    void post(Runnable step) {
        queue.add(step);
        if (work.getAndIncrement() != 0) {
            return;
        }
        do {
            queue.poll().run();
        } while (work.decrementAndGet() != 0);
    }
}
