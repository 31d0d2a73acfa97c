package io.hbmledger.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The {@code -h/--help} and {@code -V/--version} options of a command model built by hand, with
 * the names and words of picocli's {@code mixinStandardHelpOptions}. picocli's own mixin is an
 * annotated class: reading it costs the start-up that building by hand saves (see {@link Main}).
 */
final class StandardOptions {

    private StandardOptions() {
    }

    static CommandSpec addTo(CommandSpec spec) {
        spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true)
                .descriptionKey("mixinStandardHelpOptions.help").description("Show this help message and exit.").build());
        spec.addOption(OptionSpec.builder("-V", "--version").versionHelp(true)
                .descriptionKey("mixinStandardHelpOptions.version").description("Print version information and exit.")
                .build());
        return spec;
    }
}
