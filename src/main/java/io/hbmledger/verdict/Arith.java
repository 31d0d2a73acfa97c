package io.hbmledger.verdict;

import static io.hbmledger.ledger.Units.gibNumber;

import io.hbmledger.ledger.Confidence;
import java.util.Locale;

/** Arithmetic on figures that writes down what it did, in GiB as the user reads it. */
final class Arith {

    private Arith() {
    }

    static Figure minus(String name, Figure a, Figure b) {
        return Figure.bytes(name, a.bytes() - b.bytes(), Figure.derived(a, b),
                gibNumber(a.bytes()) + " - " + gibNumber(b.bytes()) + " GiB", Figure.sourcesOf(a, b));
    }

    static Figure sum(String name, Figure... parts) {
        long total = 0;
        StringBuilder text = new StringBuilder();
        for (Figure p : parts) {
            total += p.bytes();
            text.append(text.length() == 0 ? "" : " + ").append(gibNumber(p.bytes()));
        }
        return Figure.bytes(name, total, Figure.derived(parts), text + " GiB", Figure.sourcesOf(parts));
    }

    static Figure times(String name, Figure ratio, Figure bytes) {
        long product = Math.round(ratio.value() * bytes.bytes());
        return Figure.bytes(name, product, Figure.derived(ratio, bytes),
                ratio(ratio.value()) + " x " + gibNumber(bytes.bytes()) + " GiB", Figure.sourcesOf(ratio, bytes));
    }

    /** a / b as a ratio rounded down to two decimals: the largest setting that still fits. */
    static Figure ratioDown(String name, Figure a, Figure b) {
        double r = Math.floor(a.bytes() / (double) b.bytes() * 100 + 1e-9) / 100;
        return Figure.value(name, r, lessSure(Figure.derived(a, b)),
                gibNumber(a.bytes()) + " / " + gibNumber(b.bytes()) + " GiB, rounded down", Figure.sourcesOf(a, b));
    }

    /** a / b rounded up to two decimals: the smallest setting that is enough. */
    static Figure ratioUp(String name, Figure a, Figure b) {
        double r = Math.ceil(a.bytes() / (double) b.bytes() * 100 - 1e-9) / 100;
        return Figure.value(name, r, lessSure(Figure.derived(a, b)),
                gibNumber(a.bytes()) + " / " + gibNumber(b.bytes()) + " GiB = "
                        + String.format(Locale.ROOT, "%.3f", a.bytes() / (double) b.bytes()) + ", rounded up",
                Figure.sourcesOf(a, b));
    }

    /** A setting worked out from figures is advice, at best inferred. */
    private static Confidence lessSure(Confidence c) {
        return c.ordinal() < Confidence.INFERRED.ordinal() ? Confidence.INFERRED : c;
    }

    static String ratio(double r) {
        String s = String.format(Locale.ROOT, "%.4f", r).replaceAll("0+$", "");
        return s.endsWith(".") ? s + "0" : s;
    }

    /** "ranks 0 and 1", "ranks 0, 2 and 5", "ranks 0-15" for a run of more than three, sorted. */
    static String ranks(java.util.List<Integer> sorted) {
        int n = sorted.size();
        if (n > 3 && sorted.get(n - 1) - sorted.get(0) == n - 1) {
            return "ranks " + sorted.get(0) + "-" + sorted.get(n - 1);
        }
        java.util.List<String> s = sorted.stream().map(String::valueOf).toList();
        return (n == 1 ? "rank " : "ranks ") + (n == 1 ? s.get(0)
                : String.join(", ", s.subList(0, n - 1)) + " and " + s.get(n - 1));
    }

    static String gib(Figure f) {
        return gibNumber(f.bytes()) + " GiB";
    }
}
