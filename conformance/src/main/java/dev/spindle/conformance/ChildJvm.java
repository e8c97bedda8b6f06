// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import java.io.File;

/** What a test needs to start a server in a JVM of its own. */
public final class ChildJvm {
    private ChildJvm() {
    }

    /**
     * The class path for a child JVM that sees what this one sees: this JVM's module path (where
     * surefire puts the module under test and what it requires) followed by its class path. The
     * child runs everything from its class path, where module-info is ignored.
     *
     * @return the class path, in the platform's separator
     */
    public static String classPath() {
        String classPath = System.getProperty("java.class.path");
        String modulePath = System.getProperty("jdk.module.path");
        return modulePath == null || modulePath.isEmpty() ? classPath : modulePath + File.pathSeparator + classPath;
    }
}
