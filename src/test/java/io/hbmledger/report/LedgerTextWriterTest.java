package io.hbmledger.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.ledger.Attribution;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.LedgerFixtures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class LedgerTextWriterTest {

    private static String text(EvidenceSet ev) {
        StringWriter w = new StringWriter();
        new LedgerTextWriter().write(Attribution.standard().attribute(ev), ev.layout(), "run", new PrintWriter(w));
        return w.toString();
    }

    @Test
    void everyLedgerLineHasAmountConfidenceAndSource() {
        String t = text(LedgerFixtures.a3());
        // 16948692569 B / 2^30 = 15.7847 -> 15.78; 34184553369 B -> 31.84; 3577741312 B -> 3.33
        assertThat(t).containsPattern("weights\\s+15\\.78\\s+reported\\s+serve\\.log:46 \"15\\.7847 GB\"");
        assertThat(t).containsPattern("kv_cache\\s+31\\.84\\s+reported\\s+serve\\.log:47");
        assertThat(t).containsPattern("driver_baseline\\s+3\\.33\\s+measured\\s+npu-smi\\.txt:9");
        // not counted: in parentheses (1238511527 B = 1.15 GiB)
        assertThat(t).containsPattern("activation_peak_and_non_torch\\s+\\(1\\.15\\)\\s+inferred");
        assertThat(t).containsPattern("used\\s+unknown\\s+unknown");
        assertThat(t).containsPattern("graph_pool\\s+unknown\\s+unknown");
        assertThat(t).doesNotContainPattern("graph_pool\\s+0\\.00");
        List<String> table = t.lines().filter(l -> l.matches("  [a-z_]+ .*") && !l.startsWith("  sum of counted")).toList();
        for (String line : table) {
            assertThat(line).as(line).containsAnyOf("measured", "reported", "inferred", "unknown", "estimated", "exact", "confidence");
        }
    }

    @Test
    void oomLedgerShowsWhatFilledTheDevice() {
        String t = text(LedgerFixtures.oom());
        if (System.getProperty("show") != null) {
            System.out.println(text(LedgerFixtures.a3()));
            System.out.println(t);
        }
        assertThat(t).contains("status: failed");
        // 57702885622 B = 53.74 GiB; 665719931 B = 0.62; 3447717888 B = 3.21; residual 417710735 B = 0.39
        assertThat(t).containsPattern("torch_allocated\\s+53\\.74\\s+reported\\s+oom\\.log:16");
        assertThat(t).containsPattern("allocator_cache\\s+0\\.62\\s+inferred");
        assertThat(t).containsPattern("outside_processes\\s+3\\.21\\s+inferred");
        assertThat(t).containsPattern("residual\\s+0\\.39\\s+inferred");
        assertThat(t).containsPattern("out_of_memory\\s+fail\\s+tried to allocate 17\\.50 GiB with 5\\.96 GiB free: short by 11\\.54 GiB");
    }
}
