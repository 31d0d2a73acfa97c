package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Help and usage errors read well (fresh-user finding 15). */
class HelpTextTest {

    @Test
    void commandListShowsWholeSentences() {
        CliRun r = CliRun.of("--help");
        assertThat(r.out()).contains("analyze   Per-device HBM ledger of a run directory or of evidence files.")
                .contains("weights   Checkpoint weights per component and per device under TP/DP/PP/EP.")
                .doesNotContain("graph pool, other\n");
    }

    @Test
    void analyzeHelpKeepsFileNamesWhole() {
        CliRun r = CliRun.of("analyze", "--help");
        assertThat(r.out()).contains("beside run.json.").doesNotContain("run.\njson").doesNotContain("run.\r\njson");
    }

    @Test
    void usageErrorsNameTheCommandOnce() {
        assertThat(CliRun.of("--bogus").err()).contains("Try 'hbm-ledger --help'.");
        CliRun r = CliRun.of("analyze", "--bogus");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("Try 'hbm-ledger analyze --help'.");
    }

    @Test
    void aVerbRunBuildsOnlyThatVerbButHelpListsThemAll() {
        assertThat(Main.newCommandLine(new String[] {"evidence", "x.csv"}).getSubcommands().keySet())
                .containsExactly("evidence");
        assertThat(Main.newCommandLine(new String[] {"help", "analyze"}).getSubcommands().keySet())
                .containsExactly("analyze", "evidence", "weights", "exec", "collect", "help");
        assertThat(Main.newCommandLine(new String[] {"--version"}).getSubcommands()).hasSize(6);
        // the usage error of a verb run alone still names the program and the verb
        CliRun r = CliRun.of("evidence", "--bogus");
        assertThat(r.err()).contains("Try 'hbm-ledger evidence --help'.");
    }
}
