// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance.h2;

/**
 * One field of a header or trailer section, pseudo-header fields included, as sent or decoded.
 *
 * @param name the field name as it goes on the wire (lower case for a valid one)
 * @param value the field value
 */
public record Header(String name, String value) {
    @Override
    public String toString() {
        return name + ": " + value;
    }
}
