package io.hbmledger.cli;

import java.io.PrintWriter;
import picocli.CommandLine.Model.CommandSpec;

/**
 * How plan and diff end: the whole output printed at once (built first, so bad input leaves
 * nothing half-written on stdout), or the message naming the bad input and exit 2.
 */
final class Finish {

    private Finish() {
    }

    static int print(CommandSpec spec, String shown) {
        PrintWriter out = spec.commandLine().getOut();
        out.print(shown);
        out.flush();
        return 0;
    }

    static int badInput(CommandSpec spec, Exception e) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("hbm-ledger: " + e.getMessage());
        err.flush();
        return Main.EXIT_BAD_INPUT;
    }
}
