package io.lmwarden.bench.workload;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Day-2 operations' fault texts (issue 26): what they parse to, how they read back, what they refuse. */
class ScheduledFaultTest {

    @Test
    void aRollingUpgradeOfEveryReplicaOrOfOne() {
        ScheduledFault all = ScheduledFault.parse("upgrade replicas at 3m");
        assertThat(all.kind()).isEqualTo(ScheduledFault.Kind.UPGRADE);
        assertThat(all.replica()).isEqualTo(ScheduledFault.ALL);
        assertThat(all.at()).isEqualTo(Duration.ofMinutes(3));
        assertThat(all.describe()).isEqualTo("upgrade replicas at 180.0s");
        ScheduledFault one = ScheduledFault.parse("Upgrade replica 2 at 90s");
        assertThat(one.replica()).isEqualTo(2);
        assertThat(one.describe()).isEqualTo("upgrade replica 2 at 90.0s");
        assertThat(all.kind().changesPool()).isTrue();
        assertThat(all.kind().needsProcesses()).isTrue();
    }

    @Test
    void scalingDownAndUp() {
        ScheduledFault remove = ScheduledFault.parse("remove replica 3 at 2m");
        assertThat(remove.kind()).isEqualTo(ScheduledFault.Kind.REMOVE);
        assertThat(remove.replica()).isEqualTo(3);
        assertThat(remove.describe()).isEqualTo("remove replica 3 at 120.0s");
        ScheduledFault add = ScheduledFault.parse("add replica 2 at 1m");
        assertThat(add.kind()).isEqualTo(ScheduledFault.Kind.ADD);
        assertThat(add.replica()).isEqualTo(2);
        assertThat(add.at()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void restartingOneRouterOrEveryOneInTurn() {
        ScheduledFault one = ScheduledFault.parse("restart router 1 at 5m");
        assertThat(one.kind()).isEqualTo(ScheduledFault.Kind.RESTART_ROUTER);
        assertThat(one.replica()).isEqualTo(1);
        assertThat(one.describe()).isEqualTo("restart router 1 at 300.0s");
        ScheduledFault all = ScheduledFault.parse("restart routers at 3m");
        assertThat(all.replica()).isEqualTo(ScheduledFault.ALL);
        assertThat(all.describe()).isEqualTo("restart routers at 180.0s");
        assertThat(all.kind().changesPool()).isTrue();
        assertThat(all.kind().needsProcesses()).as("routers restart in the bench's process").isFalse();
    }

    @Test
    void theOldFaultsStillParseAndChangeNoPool() {
        assertThat(ScheduledFault.parse("kill replica 1 at 5m").kind().changesPool()).isFalse();
        assertThat(ScheduledFault.parse("drain replica 1 at 1m").kind().changesPool()).isFalse();
    }

    @Test
    void wrongTextsSayWhatToWrite() {
        assertThatThrownBy(() -> ScheduledFault.parse("remove replicas at 1m")).hasMessageContaining("expected 'replica'")
                .hasMessageContaining("'upgrade replicas at 3m'");
        assertThatThrownBy(() -> ScheduledFault.parse("add replicas at 1m")).hasMessageContaining("expected 'replica'");
        assertThatThrownBy(() -> ScheduledFault.parse("restart replica 1 at 1m")).hasMessageContaining("expected 'router'");
        assertThatThrownBy(() -> ScheduledFault.parse("upgrade replicas")).hasMessageContaining("write e.g.");
        assertThatThrownBy(() -> ScheduledFault.parse("restart routers at 1m now")).hasMessageContaining("unexpected 'now'");
        assertThatThrownBy(() -> ScheduledFault.parse("upgrade replica -1 at 1m")).hasMessageContaining("replica index >= 0");
        assertThatThrownBy(() -> ScheduledFault.operation(ScheduledFault.Kind.REMOVE, ScheduledFault.ALL, Duration.ZERO))
                .hasMessageContaining("replica index >= 0");
    }
}
