package io.hbmledger.cli;

import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.Source;
import io.hbmledger.load.BadInputException;
import io.hbmledger.verdict.Figure;
import java.util.ArrayList;
import java.util.List;

/** {@code --utilizations}: the user's own settings, cited as the command line. */
final class UtilizationFlags {

    private UtilizationFlags() {
    }

    static List<Figure> figures(List<Double> utilizations) throws BadInputException {
        List<Figure> out = new ArrayList<>();
        for (int i = 0; i < utilizations.size(); i++) {
            double u = utilizations.get(i);
            if (!(u > 0 && u <= 1)) {
                throw new BadInputException("--utilizations: expected ratios in (0, 1] such as 0.9 (one per instance, in"
                        + " start order), found " + u + " at position " + (i + 1));
            }
            // the user states the setting: as sure as a figure the engine reports about itself
            out.add(Figure.value("utilization", u, Confidence.REPORTED, null,
                    List.of(new Source("--utilizations", i + 1, String.valueOf(u)))));
        }
        return out;
    }
}
