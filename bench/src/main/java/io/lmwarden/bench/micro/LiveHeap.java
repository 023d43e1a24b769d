package io.lmwarden.bench.micro;

/** The heap in use after a few collections: what the footprint tools compare before and after filling a table. */
public final class LiveHeap {

    private LiveHeap() {
    }

    public static long bytes() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 4; i++) {
            System.gc();
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return rt.totalMemory() - rt.freeMemory();
    }
}
