package dev.punctual.local.retention;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Entries in the order they were added (or, through {@link #addInOrder}, in the order they happened),
 * forgetting the oldest once there are more than the
 * retention's count or once they are as old as its age, and counting what it forgot. Age is
 * checked whenever the log is added to or read ({@link #trim}); a caller that must forget on time
 * while nothing is added calls {@link #trim} from its timer. Not thread-safe: the owner guards it.
 *
 * @param <T> what is kept
 */
public final class RetainedLog<T> {

    private record Entry<T>(T value, long atMillis) {
    }

    private final Retention retention;
    private final Consumer<T> onForget;
    private final ArrayDeque<Entry<T>> entries = new ArrayDeque<>();
    private long forgotten;

    /** A log that tells {@code onForget} of each entry it forgets. */
    public RetainedLog(Retention retention, Consumer<T> onForget) {
        this.retention = retention;
        this.onForget = onForget;
    }

    /** A log that just drops what it forgets. */
    public RetainedLog(Retention retention) {
        this(retention, value -> { });
    }

    /** Adds {@code value}, which happened {@code at}, forgetting the oldest beyond the bounds. */
    public void add(T value, Instant at) {
        entries.addLast(new Entry<>(value, at.toEpochMilli()));
        forgetBeyondTheBounds(at);
    }

    /**
     * As {@link #add}, but placed among those kept by {@code at} rather than after them, so the log stays
     * in the order things happened when they are added out of it (executions closed on two threads, or read
     * back from two places after a restart), and it is the oldest that is forgotten. An entry older than
     * all kept, once the count is full, is forgotten at once. Cheap when adds come in order.
     */
    public void addInOrder(T value, Instant at) {
        long atMillis = at.toEpochMilli();
        if (entries.isEmpty() || entries.peekLast().atMillis() <= atMillis) {
            add(value, at);
            return;
        }
        ArrayDeque<Entry<T>> later = new ArrayDeque<>();
        while (!entries.isEmpty() && entries.peekLast().atMillis() > atMillis) {
            later.addFirst(entries.pollLast());
        }
        entries.addLast(new Entry<>(value, atMillis));
        entries.addAll(later);
        forgetBeyondTheBounds(at);
    }

    private void forgetBeyondTheBounds(Instant at) {
        while (entries.size() > retention.count()) {
            forget(entries.pollFirst());
        }
        trim(at);
    }

    /**
     * Forgets the entries that are the retention's age old or older at {@code now}: an entry is kept
     * for its age and no longer, so a timer set for the instant it turns that old finds it gone.
     */
    public void trim(Instant now) {
        long newestForgotten = now.toEpochMilli() - retention.age().toMillis();
        while (!entries.isEmpty() && entries.peekFirst().atMillis() <= newestForgotten) {
            forget(entries.pollFirst());
        }
    }

    private void forget(Entry<T> entry) {
        forgotten++;
        onForget.accept(entry.value());
    }

    /** Entries kept, oldest first. */
    public List<T> oldestFirst() {
        List<T> values = new ArrayList<>(entries.size());
        entries.forEach(entry -> values.add(entry.value()));
        return values;
    }

    /** Each entry kept with when it happened, oldest first. */
    public void forEachOldestFirst(BiConsumer<T, Instant> action) {
        entries.forEach(entry -> action.accept(entry.value(), Instant.ofEpochMilli(entry.atMillis())));
    }

    /** Entries kept, newest first. */
    public Iterator<T> newestFirst() {
        Iterator<Entry<T>> descending = entries.descendingIterator();
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return descending.hasNext();
            }

            @Override
            public T next() {
                return descending.next().value();
            }
        };
    }

    /** The oldest entry kept, or {@code null}. */
    public T oldest() {
        Entry<T> first = entries.peekFirst();
        return first == null ? null : first.value();
    }

    public int size() {
        return entries.size();
    }

    /** How many entries were forgotten since the log was made. */
    public long forgotten() {
        return forgotten;
    }

    public Retention retention() {
        return retention;
    }
}
