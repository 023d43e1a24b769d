package io.lmwarden.sim;

public final class SimMain {
    public static void main(String[] args) {
        System.out.println("simulator: not built yet");
    }
}
