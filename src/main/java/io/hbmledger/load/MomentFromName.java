package io.hbmledger.load;

import io.hbmledger.run.Moment;
import java.util.Locale;
import java.util.Optional;

/**
 * The moment of a device sample told from its file name when the user gives none
 * ({@code npu-smi-idle.txt}, {@code ready-001.csv}, {@code after_load.txt}): the words people
 * and {@code collect} use. Only whole words count, so {@code download} is not {@code load}.
 */
final class MomentFromName {

    private MomentFromName() {
    }

    static Optional<Moment> of(String fileName) {
        String name = fileName.toLowerCase(Locale.ROOT);
        int dot = name.lastIndexOf('.');
        if (dot > 0) {
            name = name.substring(0, dot);
        }
        Optional<Moment> found = Optional.empty();
        for (String word : name.split("[^a-z]+")) {
            Optional<Moment> m = switch (word) {
                case "idle", "baseline", "before" -> Optional.of(Moment.BASELINE);
                case "ready" -> Optional.of(Moment.READY);
                case "load", "loaded", "during", "busy" -> Optional.of(Moment.LOAD);
                case "after" -> Optional.of(Moment.AFTER);
                case "oom" -> Optional.of(Moment.OOM);
                default -> Optional.empty();
            };
            if (m.isPresent()) {
                // "after-oom", "ready-then-load": the later word names when it was taken
                found = m;
            }
        }
        return found;
    }
}
