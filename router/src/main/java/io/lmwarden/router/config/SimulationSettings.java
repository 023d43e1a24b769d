package io.lmwarden.router.config;

/**
 * The simulated replicas of {@code --simulate}, and the speed of the engines' clock: a simulator running K
 * times faster than real time has every workload duration of the router divided by K on the wall clock.
 */
public record SimulationSettings(
        @Key("simProfile") String profile,
        @Key("simModel") String model,
        double timeScale) {

    public static final Setting<String> SIM_PROFILE = Setting.text("simProfile", "a4000-qwen3-4b", "simulator profile for --simulate");
    public static final Setting<String> SIM_MODEL = Setting.text("simModel", "Qwen/Qwen3-4B-Instruct-2507",
            "model name the simulated replicas serve");
    public static final Setting<Double> TIME_SCALE = Setting.decimal("timeScale", "1",
            "simulated replicas run K times faster than real time").positive();
}
