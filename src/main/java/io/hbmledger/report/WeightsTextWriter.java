package io.hbmledger.report;

import io.hbmledger.weights.ComponentShare;
import io.hbmledger.weights.KvCacheEstimate;
import io.hbmledger.weights.WeightsPlan;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Prints a weights plan for a person: one aligned row per component and rule, GiB and bytes. */
public final class WeightsTextWriter {

    public void write(String modelDir, WeightsPlan p, PrintWriter out) {
        String totalWord = p.source().confidence();
        out.printf("%s: %d tensors, %s (%s: %s)%n", modelDir, p.components().stream().mapToInt(ComponentShare::tensors).sum(),
                gib(p.checkpointBytes()), totalWord, p.source().what());
        out.printf("layout %s, weights served as %s%n%n", p.layout(), p.servedDtype());
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"component", "rule", "tensors", "parameters", "total (" + totalWord + ")", "per device (estimated)",
            "dtype stored -> served", "how"});
        for (ComponentShare c : p.components()) {
            rows.add(new String[] {c.component().label(), c.rule().label(), Integer.toString(c.tensors()), params(c.parameters()),
                gib(c.totalBytes()), gib(c.perDeviceBytes()), dtype(c), c.formula()});
        }
        rows.add(new String[] {"total", "", Integer.toString(p.components().stream().mapToInt(ComponentShare::tensors).sum()),
            params(p.components().stream().mapToLong(ComponentShare::parameters).sum()),
            gib(p.checkpointBytes()), gib(p.perDeviceBytes()), "", p.layout().pp() > 1 ? "PP stage " + p.heaviestStage() + " (the heaviest)" : ""});
        aligned(rows, out);
        if (p.layout().pp() > 1) {
            out.print("per device by PP stage:");
            for (int s = 0; s < p.stageBytes().size(); s++) {
                out.print("  " + s + ": " + gib(p.stageBytes().get(s)));
            }
            out.println();
        }
        KvCacheEstimate kv = p.kv();
        if (kv != null) {
            out.printf("%nKV cache (estimated, %s): %d B per token for the model (%s); %d B per token per device, %d B per %d-token block per device%n",
                    kv.dtype(), kv.bytesPerToken(), kv.formula(), kv.bytesPerTokenPerDevice(), kv.bytesPerBlockPerDevice(), kv.blockSize());
        }
        if (!p.notes().isEmpty()) {
            out.println();
            out.println("notes:");
            for (String n : p.notes()) {
                out.println("  - " + n);
            }
        }
        out.flush();
    }

    /** "BF16" when stored and served alike, "F8_E4M3 -> BF16" when the served dtype differs. */
    static String dtype(ComponentShare c) {
        if (c.storedDtype() == null) {
            return "";
        }
        return c.servedDtype() == null || c.servedDtype().equals(c.storedDtype()) ? c.storedDtype()
                : c.storedDtype() + " -> " + c.servedDtype();
    }

    static String params(long n) {
        return n >= 1_000_000_000L ? String.format(Locale.ROOT, "%.2f bn", n / 1e9)
                : n >= 1_000_000L ? String.format(Locale.ROOT, "%.2f M", n / 1e6) : Long.toString(n);
    }

    static String gib(long bytes) {
        return String.format(Locale.ROOT, "%.2f GiB (%d B)", bytes / 1073741824.0, bytes);
    }

    private static void aligned(List<String[]> rows, PrintWriter out) {
        boolean[] right = new boolean[rows.get(0).length];
        for (int i = 2; i <= 5 && i < right.length; i++) {
            right[i] = true; // tensors, parameters and the two byte columns
        }
        TextTable.print(rows, right, "", out);
    }
}
