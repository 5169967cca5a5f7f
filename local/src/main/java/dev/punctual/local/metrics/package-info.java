/** Where the local runtime's functions publish their CloudWatch metrics, kept within bounds. */
package dev.punctual.local.metrics;
