# LM Warden router image: the router and the vLLM simulator (the operator runs simulated replicas
# from this image with `java -jar /app/lmw-sim.jar ...` when a ModelDeployment sets simulator.enabled).
# Build from the repository root after `mvn -B -pl router,sim -am package`:
#   docker build -f deploy/docker/router.Dockerfile -t ghcr.io/lm-warden/router:0.1.0 .
FROM eclipse-temurin:17-jre

RUN groupadd --system --gid 65532 lmw \
 && useradd --system --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin lmw

COPY router/target/lmw-router.jar /app/lmw-router.jar
COPY sim/target/lmw-sim.jar /app/lmw-sim.jar

USER 65532:65532
EXPOSE 8000
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-jar", "/app/lmw-router.jar"]
CMD ["--port", "8000"]
