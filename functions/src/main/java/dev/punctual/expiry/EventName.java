package dev.punctual.expiry;

/** What a stream record reports happened to an item. */
public enum EventName {
    INSERT, MODIFY, REMOVE
}
