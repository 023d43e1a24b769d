# LM Warden operator image.
# Build from the repository root after `mvn -B -pl operator -am package`:
#   docker build -f deploy/docker/operator.Dockerfile -t ghcr.io/lm-warden/operator:0.1.0 .
FROM eclipse-temurin:17-jre

# A fixed non-root uid (65532) that the chart's pod securityContext also names.
RUN groupadd --system --gid 65532 lmw \
 && useradd --system --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin lmw

COPY operator/target/lmw-operator.jar /app/lmw-operator.jar

USER 65532:65532
# /healthz, /readyz and /metrics
EXPOSE 8080
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-jar", "/app/lmw-operator.jar"]
