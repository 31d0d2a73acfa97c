package io.hbmledger.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.ledger.Source;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Text from evidence is escaped everywhere in the page; unknown is drawn hatched, never as 0. */
class HtmlReportWriterTest {

    private static final long GIB = 1L << 30;

    @Test
    void evidenceTextIsEscapedAndUnknownUsedIsHatched() {
        String hostile = "<script>alert(\"x\")</script> & 'q'";
        Source src = new Source("evidence/" + hostile + ".log", 3, hostile);
        DeviceLedger d = new DeviceLedger("npu:0/chip:0", 0, List.of(0), "ready",
                new DeviceLedger.Amount(64 * GIB, src, hostile), DeviceLedger.Amount.unknown("no sample at ready"),
                List.of(new Entry("weights", 16 * GIB, Confidence.REPORTED, List.of(src), hostile, "startup", true, null),
                        Entry.unknown("hccl", hostile)),
                null, hostile, List.of());
        Ledger ledger = new Ledger(Ledger.Status.INCOMPLETE, List.of(hostile), List.of(d), List.of(), List.of(hostile));
        String html = new HtmlReportWriter().toHtml(ledger, List.of(), Layout.of(1, 1, List.of(0), List.of(), hostile),
                "runs/" + hostile, hostile, new Timeline(List.of(), List.of(), false), Map.of());
        // our one inline script, and no other
        assertThat(html.split("<script>", -1)).hasSize(2);
        assertThat(html).doesNotContain("alert(\"x\")").contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;");
        // used unknown: the rest of the bar is one hatched "unknown" segment, and no free segment
        assertThat(html).contains("class=\"seg unknown\"").doesNotContain("data-component=\"free\" data-bytes");
        // the unknown cells show "?", not 0.00
        assertThat(html).contains("data-component=\"hccl\" data-confidence=\"unknown\" title=");
        assertThat(html).doesNotContain(">0.00<");
    }
}
