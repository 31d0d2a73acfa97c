package io.hbmledger.collect;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The GPUs a collection on an NVIDIA host gives the server, as nvidia-smi indices. They come from
 * {@code --devices} or else from {@code CUDA_VISIBLE_DEVICES} in the server's environment, each
 * entry an index or a GPU UUID ({@code GPU-8c1c...}, as CUDA accepts; a unique prefix is enough,
 * as for CUDA). The server is then started with the indices and {@code CUDA_DEVICE_ORDER=PCI_BUS_ID},
 * which makes CUDA's numbering nvidia-smi's; any other order would name other GPUs than the
 * samples and is refused.
 */
public final class GpuDevices {

    private GpuDevices() {
    }

    /** True when a list names a GPU by UUID, so nvidia-smi must be asked for the indices. */
    public static boolean needsUuids(String list) {
        return list != null && list.chars().anyMatch(Character::isLetter);
    }

    /**
     * Turns a list of indices and UUIDs into indices.
     *
     * @param list e.g. {@code 0,GPU-8c1c2f0e}
     * @param indexUuidCsv {@code nvidia-smi --query-gpu=index,uuid --format=csv,noheader,nounits} output
     *     (a header line, if any, is skipped); may be null when the list holds indices only
     * @return indices joined by commas, in the order given
     * @throws ArgumentException for a MIG UUID, an unknown or ambiguous UUID
     */
    public static String toIndices(String list, String indexUuidCsv) {
        Map<String, String> uuids = new LinkedHashMap<>();
        if (indexUuidCsv != null) {
            for (String line : indexUuidCsv.split("\n")) {
                String[] f = line.split(",");
                if (f.length >= 2 && f[0].strip().matches("\\d+")) {
                    uuids.put(f[1].strip(), f[0].strip());
                }
            }
        }
        List<String> out = new ArrayList<>();
        for (String raw : list.split(",")) {
            String d = raw.strip();
            if (d.matches("\\d+")) {
                out.add(d);
                continue;
            }
            if (d.toUpperCase(Locale.ROOT).startsWith("MIG-")) {
                throw new ArgumentException("device " + d + " is a MIG instance: hbm-ledger samples whole GPUs (nvidia-smi index);"
                        + " give the index of the GPU that holds it in --devices");
            }
            List<String> hits = uuids.keySet().stream().filter(u -> u.startsWith(d)).toList();
            if (hits.size() != 1) {
                throw new ArgumentException("GPU " + d + (hits.isEmpty() ? " is not one of this host's GPUs" : " matches " + hits.size()
                        + " GPUs") + "; nvidia-smi lists " + (uuids.isEmpty() ? "none" : uuids.keySet())
                        + ". Give indices or full UUIDs in --devices");
            }
            out.add(uuids.get(hits.get(0)));
        }
        return String.join(",", out);
    }

    /**
     * Refuses an environment whose CUDA_DEVICE_ORDER would make CUDA's device numbers differ from
     * nvidia-smi's (CUDA's default, FASTEST_FIRST, may put another GPU first).
     */
    public static void checkOrder(Map<String, String> env) {
        String order = env.get("CUDA_DEVICE_ORDER");
        if (order != null && !order.equals("PCI_BUS_ID")) {
            throw new ArgumentException("CUDA_DEVICE_ORDER=" + order + " in --env: CUDA would then number the GPUs otherwise than"
                    + " nvidia-smi, and the samples would describe other GPUs than the server's. Drop it: collect sets PCI_BUS_ID");
        }
    }
}
