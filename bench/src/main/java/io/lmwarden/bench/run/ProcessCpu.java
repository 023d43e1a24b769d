package io.lmwarden.bench.run;

import java.lang.management.ManagementFactory;

/** CPU time used by this JVM so far, or 0 where the platform does not say. */
final class ProcessCpu {

    private ProcessCpu() {
    }

    static long nanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return Math.max(0, os.getProcessCpuTime());
        }
        return 0;
    }
}
