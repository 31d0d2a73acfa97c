package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.collect.ArgumentException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A multi-node run keeps its hosts and how they were reached, never a secret; resume fills what the user did not give again. */
class RecordedNodesTest {

    @TempDir
    Path tmp;

    @Test
    void secretsOfTheRemoteEnvironmentAreNotKeptAndMustBeGivenAgain() throws Exception {
        CollectCommand first = new CollectCommand();
        first.identity = Path.of("/keys/id");
        first.remoteEnv.put("PATH", "/usr/local/Ascend/bin:/usr/bin");
        first.remoteEnv.put("HF_TOKEN", "hf_abcdef123456");
        Map<String, Object> connection = RecordedNodes.connection(first);
        assertThat(connection).containsEntry("identity", "/keys/id").doesNotContainKey("known_hosts");
        assertThat(connection.get("remote_env")).isEqualTo(Map.of("PATH", "/usr/local/Ascend/bin:/usr/bin", "HF_TOKEN", "***"));

        Files.writeString(tmp.resolve("run.json"), new ObjectMapper().writeValueAsString(Map.of("mode", "multinode",
                "nodes", List.of(Map.of("name", "a", "host", "root@npu-a:22"), Map.of("name", "b", "host", "kube:serving/vllm-1:main")),
                "connection", connection)));
        CollectCommand resume = new CollectCommand();
        assertThatThrownBy(() -> RecordedNodes.fill(resume, tmp)).isInstanceOf(ArgumentException.class)
                .hasMessageContaining("--remote-env HF_TOKEN=VALUE again");

        CollectCommand given = new CollectCommand();
        given.remoteEnv.put("HF_TOKEN", "hf_abcdef123456");
        given.identity = Path.of("/other/id");
        RecordedNodes.fill(given, tmp);
        assertThat(given.sshTargets).containsExactly("root@npu-a:22");
        assertThat(given.kube).containsExactly("serving/vllm-1:main");
        assertThat(given.identity).isEqualTo(Path.of("/other/id"));
        assertThat(given.remoteEnv).containsEntry("PATH", "/usr/local/Ascend/bin:/usr/bin").containsEntry("HF_TOKEN", "hf_abcdef123456");
    }
}
