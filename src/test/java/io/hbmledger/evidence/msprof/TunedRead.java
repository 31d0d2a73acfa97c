package io.hbmledger.evidence.msprof;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;

/**
 * One msprof file read as {@link MsprofFiles#start} reads it, with the scan tuned by the test
 * (general path only, small parts, windows of a byte order), on one pool for every msprof test
 * class. Its threads are daemons: the pool lives as long as the test JVM and never holds it.
 */
final class TunedRead {

    private static final ExecutorService POOL = Executors.newFixedThreadPool(3, r -> {
        Thread t = new Thread(r, "msprof-test-reader");
        t.setDaemon(true);
        return t;
    });

    private TunedRead() {
    }

    /**
     * @param display the name the result shows for the file
     * @param parallelism the parts aimed for per core-sized slice, as the analyser passes it
     */
    static MsprofFileResult read(Path p, String display, MsprofPass pass, int parallelism,
                                 UnaryOperator<CsvFileScan> tune) throws Exception {
        return MsprofFiles.start(p, display, null, pass, POOL, parallelism, null, tune).get();
    }
}
