package io.hbmledger.collect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ShellQuoteTest {

    static final List<String> NASTY = List.of("/models/my model", "it's \"quoted\"", "$(touch /tmp/pwned-hbm)", "a;b", "`id`",
            "back\\slash", "", "new\nline", "*");

    @Test
    void argumentsSurviveAShellLiterally() throws Exception {
        // what a remote sshd does with the command string: sh -c STRING
        String cmd = ShellQuote.command(Map.of("HBM_X", "v a;l"), List.of("python3", "-c",
                "import json,os,sys; print(json.dumps([os.environ['HBM_X']] + sys.argv[1:]))"))
                + " " + String.join(" ", NASTY.stream().map(ShellQuote::quote).toList());
        Process p = new ProcessBuilder("sh", "-c", cmd).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).isZero();
        @SuppressWarnings("unchecked")
        List<String> got = new ObjectMapper().readValue(out, List.class);
        assertThat(got.get(0)).isEqualTo("v a;l");
        assertThat(got.subList(1, got.size())).isEqualTo(NASTY);
    }
}
