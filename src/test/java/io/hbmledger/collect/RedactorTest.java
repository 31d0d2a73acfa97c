package io.hbmledger.collect;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RedactorTest {

    @Test
    void masksSecretOptionValuesInBothForms() {
        List<String> argv = List.of("vllm", "serve", "/models/q", "--api-key", "sk-live-1234", "--hf-token=hf_abcdef",
                "--port", "8000");
        Redactor r = Redactor.forArguments(argv);
        assertThat(r.arguments(argv)).containsExactly("vllm", "serve", "/models/q", "--api-key", "***", "--hf-token=***",
                "--port", "8000");
    }

    @Test
    void masksKnownValuesPatternsAndBearerTokensInText() {
        Redactor r = Redactor.forArguments(List.of("--api-key", "sk-live-1234"));
        String log = "args: Namespace(api_key='sk-live-1234')\n"
                + "cmd: vllm serve m --api-key other-5678\n"
                + "HF_TOKEN=hf_xyz123 VLLM_PORT=8000\n"
                + "Authorization: Bearer abc.def-ghi\n";
        String masked = r.text(log);
        assertThat(masked).doesNotContain("sk-live-1234", "other-5678", "hf_xyz123", "abc.def-ghi");
        assertThat(masked).contains("VLLM_PORT=8000", "--api-key ***", "HF_TOKEN=***", "Bearer ***");
        assertThat(r.hasSecret(masked)).isFalse();
        assertThat(r.hasSecret(log)).isTrue();
    }

    @Test
    void jsonAndPythonDumpsOfTheArgumentsAreMasked() {
        Redactor r = new Redactor();
        assertThat(r.text("args=[\"serve\", \"m\", \"--api-key\", \"sk-abc-123\", \"--port\", \"8000\"]"))
                .isEqualTo("args=[\"serve\", \"m\", \"--api-key\", \"***\", \"--port\", \"8000\"]");
        assertThat(r.text("non-default args: {'api_key': 'sk-abc-123', 'tokenizer': '/models/tok'}"))
                .isEqualTo("non-default args: {'api_key': '***', 'tokenizer': '/models/tok'}");
    }

    @Test
    void optionsThatOnlyMentionTokensStayVisible() {
        List<String> argv = List.of("--tokenizer", "/models/tok", "--max-num-batched-tokens", "8192", "--hf-token", "hf_1234");
        assertThat(Redactor.forArguments(argv).arguments(argv))
                .containsExactly("--tokenizer", "/models/tok", "--max-num-batched-tokens", "8192", "--hf-token", "***");
    }

    @Test
    void aSaltedHashMasksTheValueWithoutKnowingIt() {
        Redactor original = Redactor.forArguments(List.of("--api-key", "sk-live-1234"));
        String salt = "00112233445566778899aabbccddeeff";
        Redactor later = new Redactor();
        later.addHashedSecrets(salt, original.hashes(salt));
        assertThat(later.text("key=(sk-live-1234) other=sk-live-12345")).isEqualTo("key=(***) other=sk-live-12345");
    }

    @Test
    void leavesOrdinaryTextAlone() {
        Redactor r = new Redactor();
        String line = "INFO 11-29 20:00:00 worker.py:123] Loading model weights took 14.99 GiB";
        assertThat(r.text(line)).isEqualTo(line);
    }
}
