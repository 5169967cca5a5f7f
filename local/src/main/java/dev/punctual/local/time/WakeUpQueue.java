package dev.punctual.local.time;

import java.time.Instant;
import java.util.Arrays;

/**
 * A binary min-heap of pending wake-ups ordered by due instant, then by scheduling order. Entries
 * know their heap slot so a cancellation removes them in O(log n) instead of leaving garbage behind:
 * a million pending Wait states then cost one small object each plus a reference in one array.
 * Not thread-safe; its owners lock around it.
 */
final class WakeUpQueue {

    /** One pending action: two longs, an int and two references, about 40 bytes with its header. */
    static final class Entry implements Timer.Cancellable {
        final long dueSeconds;
        final int dueNanos;
        final long sequence;
        Runnable action;
        int slot = -1;
        private final WakeUpQueue.Owner owner;

        Entry(Instant at, long sequence, Runnable action, Owner owner) {
            this.dueSeconds = at.getEpochSecond();
            this.dueNanos = at.getNano();
            this.sequence = sequence;
            this.action = action;
            this.owner = owner;
        }

        boolean dueBy(Instant now) {
            return dueSeconds < now.getEpochSecond()
                    || (dueSeconds == now.getEpochSecond() && dueNanos <= now.getNano());
        }

        Instant due() {
            return Instant.ofEpochSecond(dueSeconds, dueNanos);
        }

        @Override
        public boolean cancel() {
            return owner.cancel(this);
        }

        int compareTo(Entry other) {
            if (dueSeconds != other.dueSeconds) {
                return Long.compare(dueSeconds, other.dueSeconds);
            }
            if (dueNanos != other.dueNanos) {
                return Integer.compare(dueNanos, other.dueNanos);
            }
            return Long.compare(sequence, other.sequence);
        }
    }

    /** Whoever guards the queue; a cancellation goes through it so it can take its lock. */
    interface Owner {
        boolean cancel(Entry entry);
    }

    private Entry[] heap = new Entry[64];
    private int size;
    private long nextSequence;

    Entry add(Instant at, Runnable action, Owner owner) {
        Entry entry = new Entry(at, nextSequence++, action, owner);
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size + (size >> 1));
        }
        heap[size] = entry;
        entry.slot = size;
        size++;
        siftUp(entry.slot);
        return entry;
    }

    Entry peek() {
        return size == 0 ? null : heap[0];
    }

    Entry poll() {
        if (size == 0) {
            return null;
        }
        Entry first = heap[0];
        removeAt(0);
        return first;
    }

    /** Removes a still-queued entry; {@code false} if it already left the queue. */
    boolean remove(Entry entry) {
        int slot = entry.slot;
        if (slot < 0 || slot >= size || heap[slot] != entry) {
            return false;
        }
        removeAt(slot);
        return true;
    }

    int size() {
        return size;
    }

    private void removeAt(int slot) {
        Entry removed = heap[slot];
        removed.slot = -1;
        size--;
        if (slot == size) {
            heap[size] = null;
            return;
        }
        Entry last = heap[size];
        heap[size] = null;
        heap[slot] = last;
        last.slot = slot;
        siftDown(slot);
        if (heap[slot] == last) {
            siftUp(slot);
        }
        if (size < heap.length / 4 && heap.length > 64) {
            heap = Arrays.copyOf(heap, Math.max(64, heap.length / 2));
        }
    }

    private void siftUp(int slot) {
        Entry entry = heap[slot];
        while (slot > 0) {
            int parent = (slot - 1) >>> 1;
            Entry above = heap[parent];
            if (entry.compareTo(above) >= 0) {
                break;
            }
            heap[slot] = above;
            above.slot = slot;
            slot = parent;
        }
        heap[slot] = entry;
        entry.slot = slot;
    }

    private void siftDown(int slot) {
        Entry entry = heap[slot];
        int half = size >>> 1;
        while (slot < half) {
            int child = 2 * slot + 1;
            int right = child + 1;
            if (right < size && heap[right].compareTo(heap[child]) < 0) {
                child = right;
            }
            if (entry.compareTo(heap[child]) <= 0) {
                break;
            }
            heap[slot] = heap[child];
            heap[slot].slot = slot;
            slot = child;
        }
        heap[slot] = entry;
        entry.slot = slot;
    }
}
