package io.lmwarden.operator;

public final class OperatorMain {
    public static void main(String[] args) {
        System.out.println("operator: not built yet");
    }
}
