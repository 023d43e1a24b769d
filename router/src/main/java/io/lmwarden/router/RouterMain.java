package io.lmwarden.router;

public final class RouterMain {
    public static void main(String[] args) {
        System.out.println("router: not built yet");
    }
}
