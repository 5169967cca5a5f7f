package dev.punctual.local.stepfunctions.executions;

import java.util.List;
import java.util.Optional;

/**
 * One page of a listing.
 *
 * @param items this page's items
 * @param nextToken the token for the next page, {@code null} on the last page
 */
public record Page<T>(List<T> items, String nextToken) {

    public Optional<String> next() {
        return Optional.ofNullable(nextToken);
    }
}
