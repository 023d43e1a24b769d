package io.lmwarden.bench;

public final class BenchMain {
    public static void main(String[] args) {
        System.out.println("bench: not built yet");
    }
}
