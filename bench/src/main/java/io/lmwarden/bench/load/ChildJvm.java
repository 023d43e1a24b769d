package io.lmwarden.bench.load;

import io.lmwarden.common.process.ChildProcess;

import java.nio.file.Path;
import java.util.List;

/**
 * The load tools' JVMs of their own on this machine's classpath ({@link ChildProcess}): the simulator, the router and
 * the clients in separate processes so each has its own file-descriptor limit (one process could not hold both ends
 * of 10,000 loopback connections under {@code ulimit -n} 20,000). Each gets a heap, exits on running out of it, logs
 * its GC to {@code <name>-gc.log} and its output to {@code <name>.log} in the working directory.
 */
final class ChildJvm {

    private ChildJvm() {
    }

    static ChildProcess start(String name, String heap, String mainClass, List<String> args) {
        return ChildProcess.jvm(mainClass, List.of("-Xmx" + heap, "-XX:+ExitOnOutOfMemoryError", "-Xlog:gc:file=" + name + "-gc.log"))
                .name(name).args(args).log(Path.of(name + ".log")).start();
    }

    /** URLs printed as {@code <id> http://…} (the simulator) or {@code … on http://…} (the router). */
    static String urlIn(String line) {
        int at = line.indexOf("http://");
        int end = line.indexOf(' ', at);
        return end < 0 ? line.substring(at) : line.substring(at, end);
    }
}
